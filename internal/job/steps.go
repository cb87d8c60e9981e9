package job

import (
	"context"
	"fmt"
	"time"
)

// Steps is the Submitter over a store and a runner that know nothing of each other:
// the record is written created (with its idempotency key), then the job queued, and
// the Service moves the record to pending once the submission is accepted.
type Steps struct {
	Store  OnceStore
	Runner Runner
	// Now defaults to time.Now.
	Now func() time.Time
}

var _ Submitter = Steps{}

// Submit writes rec created, with its key when once is set, then queues the job. When
// the runner refuses it the record is failed and the key forgotten, as best they can
// be: with the store down too the record stays created, which the client never saw an
// id for.
func (s Steps) Submit(ctx context.Context, rec Record, once *Once) (Record, *Use, error) {
	rec.Status = StatusCreated
	if once != nil {
		use, err := s.Store.CreateOnce(ctx, rec, once.Idempotency, once.Until)
		if err != nil {
			return Record{}, nil, recording(err)
		}
		if use != nil {
			return Record{}, use, nil
		}
	} else if err := s.Store.Create(ctx, rec); err != nil {
		return Record{}, nil, recording(err)
	}
	if err := s.Runner.Enqueue(ctx, rec); err != nil {
		_, _ = s.Store.Update(context.WithoutCancel(ctx), rec.ID, func(r *Record) error {
			return r.fail("the job could not be queued: "+err.Error(), s.now())
		})
		if once != nil {
			// Forgotten, so that a retry makes a job; left pending, the key would be
			// taken as accepted once Until passed.
			_ = s.Store.Settle(context.WithoutCancel(ctx), rec.Owner, once.Idempotency, rec.ID, false)
		}
		return Record{}, nil, fmt.Errorf("queueing job: %w", err)
	}
	return rec, nil, nil
}

// recording is the answer to a submission whose record could not be written.
func recording(err error) error {
	if Refused(err) {
		return err // its message is the client's answer as it stands
	}
	return fmt.Errorf("recording job: %w", err)
}

// Settle is the store's.
func (s Steps) Settle(ctx context.Context, owner string, idem Idempotency, id string, ok bool) error {
	return s.Store.Settle(ctx, owner, idem, id, ok)
}

// SameShard is the store's.
func (s Steps) SameShard(id, owner string, idem Idempotency) bool {
	return s.Store.SameShard(id, owner, idem)
}

// Abandon is the runner's.
func (s Steps) Abandon(ctx context.Context, id string) error { return s.Runner.Abandon(ctx, id) }

func (s Steps) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
