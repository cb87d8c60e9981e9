package job

import (
	"errors"
	"fmt"
)

// Sentinel errors of the job domain; wrapped errors say which job.
var (
	// ErrNotFound: no job has that id (or its record expired).
	ErrNotFound = errors.New("job not found")
	// ErrQueueFull: the runner holds as many jobs as it may; retry later.
	ErrQueueFull = errors.New("job queue full")
	// ErrJobLimit: the key that submits already has as many unfinished jobs as a key
	// may; retry when one has finished.
	ErrJobLimit = errors.New("too many unfinished jobs")
	// ErrQueueUnavailable: the queue backend cannot be reached.
	ErrQueueUnavailable = errors.New("job queue unavailable")
	// ErrFinished: the job already finished, so it cannot be cancelled.
	ErrFinished = errors.New("job already finished")
	// ErrShuttingDown: the runner no longer takes jobs.
	ErrShuttingDown = errors.New("shutting down")
	// errNoChange aborts an Update that has nothing to write.
	errNoChange = errors.New("no change")
)

// LimitReached is the ErrJobLimit a store answers for a key with n unfinished jobs, in
// the words its client gets.
func LimitReached(n int) error {
	return fmt.Errorf("%w: this key has %d jobs waiting or running, the most it may; retry when one has finished", ErrJobLimit, n)
}
