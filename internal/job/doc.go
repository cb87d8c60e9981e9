// Package job defines asynchronous prediction jobs: the record the API serves, its
// statuses and their transitions, the Store and Runner interfaces that the in-process
// mode (subpackages memstore and inproc) and the queue mode implement, and the one
// Submitter the Service records and queues every job through (Steps over a store and
// a runner, or the queue's Submitter in one script). The record in the Store is the
// truth the API serves, whatever the runner does.
package job
