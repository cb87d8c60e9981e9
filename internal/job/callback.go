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

// DueCallback is a callback claimed from a CallbackQueue: its job, and the key (the
// job's Owner) whose part of the queue it came from ("" for a job of no key, or one
// queued by an earlier version, which kept one part for every key).
type DueCallback struct {
	ID    string
	Owner string
}

// CallbackClaim asks a CallbackQueue for due callbacks, shared between keys: how many
// in all, and how many of each key.
type CallbackClaim struct {
	// Now is when the callbacks must be due by; each claimed is leased until
	// Now+Lease.
	Now   time.Time
	Lease time.Duration
	// N bounds the callbacks claimed in all.
	N int
	// Caps bounds those of each key it names (0: none of that key's); Each bounds
	// those of any other key.
	Caps map[string]int
	Each int
}

// Cap is how many callbacks of owner the claim may return.
func (c CallbackClaim) Cap(owner string) int {
	if n, ok := c.Caps[owner]; ok {
		return n
	}
	return c.Each
}

// CallbackQueue is the stores' queue of due callbacks, one part per key. A store adds
// a job to it in the same write that makes the job's record final (when the record
// has a pending callback), so a callback is queued exactly when its job has finished,
// whoever finished it and whatever becomes of that process.
type CallbackQueue interface {
	// ClaimCallbacks returns callbacks due at c.Now, at most c.N, and at most c.Cap of
	// each key, taken a key at a time in turn (first the key whose callback has waited
	// longest), each key's in the order they came due; and leases each for c.Lease:
	// no other claim returns it until then, unless RetryCallback or DoneCallback says
	// otherwise. A claimer that dies leaves its callbacks to be claimed again when
	// their leases end. So one key's many callbacks cannot keep another's waiting.
	ClaimCallbacks(ctx context.Context, c CallbackClaim) ([]DueCallback, error)
	// RetryCallback makes a queued callback due again at at. Its Owner is the job's
	// (from the record), which moves one queued by an earlier version to its key's
	// part.
	RetryCallback(ctx context.Context, cb DueCallback, at time.Time) error
	// DoneCallback takes a callback off the queue.
	DoneCallback(ctx context.Context, cb DueCallback) error
}
