// Package job defines asynchronous prediction jobs: the record the API serves, its
// statuses and their transitions, and the Store and Runner interfaces that the
// in-process mode (subpackages memstore and inproc) and the queue mode implement. The
// record in the Store is the truth the API serves, whatever the runner does.
package job
