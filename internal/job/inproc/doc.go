// Package inproc runs jobs inside the server process on a bounded pool of goroutines
// fed by a bounded queue: the default mode, for development and single-node use.
package inproc
