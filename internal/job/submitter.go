package job

import (
	"context"
	"time"
)

// Submitter is how a Service records and queues the jobs it submits, and drops the
// ones cancelled: the one way it reaches its store and runner together. queue.Submitter
// writes a job's record and task in one Redis script; Steps writes them one after the
// other over any OnceStore and Runner (in process, or asynq's own client).
type Submitter interface {
	// Submit writes rec, a new record, and queues its job. It returns the record as
	// written: pending when it recorded and queued the job in one atomic step, else
	// created, which the Service moves to pending once the submission is accepted. A
	// job it recorded but could not queue has its record failed and its key forgotten,
	// so that a retry makes a job. Its errors are the submission's answer as they
	// stand: a refusal (Refused) as the store worded it.
	//
	// With once set, it writes nothing when rec.Owner used once.Key within the store's
	// TTL, and returns that use. Otherwise the key is written with rec's id, in the
	// same atomic step as the record, pending (a duplicate is told to retry) until the
	// Service settles it or once.Until passes; a submitter that records and queues in
	// one step writes it accepted when once.Held is false, as nothing is left to
	// accept.
	Submit(ctx context.Context, rec Record, once *Once) (Record, *Use, error)
	// Settle ends the pending state of owner's key, which created the job id: ok says
	// the job was accepted, else the key is forgotten, so that a retry makes a job.
	Settle(ctx context.Context, owner string, idem Idempotency, id string, ok bool) error
	// SameShard reports whether the job id and owner's idempotency key are in the same
	// one of the places jobs are kept in (Redis Cluster slots), which the atomic step
	// that writes both needs: the Service draws ids until it holds.
	SameShard(id string, owner string, idem Idempotency) bool
	// Abandon is the Runner's.
	Abandon(ctx context.Context, id string) error
}

// Once is an idempotent submission's key, as a Submitter writes it.
type Once struct {
	Idempotency
	// Until is when the key stops being taken as still being accepted, should it
	// never be settled (its submitter died).
	Until time.Time
	// Held says the Service holds the submission's answer after the write (to wait for
	// the replicas), and settles the key after it.
	Held bool
}
