package job

import "errors"

// ErrUnknownQueue: no queue has that name.
var ErrUnknownQueue = errors.New("unknown queue")

// QueueControl pauses and resumes the queues jobs wait in, for the queue dashboard.
// Both are idempotent: pausing a paused queue, or resuming a running one, is no error,
// since two operators (or a retried click) asking for the same state agree. A name no
// queue has is an error wrapping ErrUnknownQueue.
type QueueControl interface {
	PauseQueue(name string) error
	ResumeQueue(name string) error
}
