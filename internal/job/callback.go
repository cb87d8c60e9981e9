package job

import (
	"context"
	"time"
)

// CallbackState is where a job's completion callback is in its delivery.
type CallbackState string

// The states of a callback: pending until the receiver answers 2xx (delivered), or
// until its attempts are given up (failed).
const (
	CallbackPending   CallbackState = "pending"
	CallbackDelivered CallbackState = "delivered"
	CallbackFailed    CallbackState = "failed"
)

// Callback is a job's completion callback: the URL its final record is posted to, and
// how its delivery went.
type Callback struct {
	URL   string        `json:"url"`
	State CallbackState `json:"state"`
	// Attempts counts the posts made so far.
	Attempts    int       `json:"attempts,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	DeliveredAt time.Time `json:"delivered_at,omitzero"`
}

// Due reports whether rec's callback is waiting for a delivery: the job has finished
// and its callback is pending.
func (rec *Record) Due() bool {
	return rec.Callback.URL != "" && rec.Callback.State == CallbackPending && rec.Status.Final()
}

// CallbackQueue is the stores' queue of due callbacks. A store adds a job to it in the
// same write that makes the job's record final (when the record has a pending
// callback), so a callback is queued exactly when its job has finished, whoever
// finished it and whatever becomes of that process.
type CallbackQueue interface {
	// ClaimCallbacks returns the ids of at most n jobs whose callbacks are due at now,
	// and leases each for lease: no other claim returns it until then, unless
	// RetryCallback or DoneCallback says otherwise. A claimer that dies leaves its
	// callbacks to be claimed again when their leases end.
	ClaimCallbacks(ctx context.Context, now time.Time, lease time.Duration, n int) ([]string, error)
	// RetryCallback makes the callback of job id due again at at.
	RetryCallback(ctx context.Context, id string, at time.Time) error
	// DoneCallback takes the callback of job id off the queue.
	DoneCallback(ctx context.Context, id string) error
}
