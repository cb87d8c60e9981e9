package job

import "errors"

// Sentinel errors of the job domain; wrapped errors say which job.
var (
	// ErrNotFound: no job has that id (or its record expired).
	ErrNotFound = errors.New("job not found")
	// ErrQueueFull: the runner holds as many jobs as it may; retry later.
	ErrQueueFull = errors.New("job queue full")
	// ErrQueueUnavailable: the queue backend cannot be reached.
	ErrQueueUnavailable = errors.New("job queue unavailable")
	// ErrFinished: the job already finished, so it cannot be cancelled.
	ErrFinished = errors.New("job already finished")
	// ErrShuttingDown: the runner no longer takes jobs.
	ErrShuttingDown = errors.New("shutting down")
	// errNoChange aborts an Update that has nothing to write.
	errNoChange = errors.New("no change")
)
