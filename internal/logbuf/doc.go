// Package logbuf batches a process's log lines into few writes. One write system call
// per line (a line per request) costs a busy server more CPU than formatting the line,
// and as much again to whoever reads the pipe; a Writer collects lines and writes them
// when its buffer fills, within a bounded delay, and at once for the records its
// Handler marks urgent. Close writes what is left.
package logbuf
