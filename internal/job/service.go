package job

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

func init() {
	// Job ids stay crypto/rand's, but read 256 bytes at a time instead of asking the
	// kernel for 16 on every submission. Enabled here, before any id is made, since the
	// switch is not safe while ids are being made.
	uuid.EnableRandPool()
}

// Service is what the API does with jobs: submit, read and cancel. It writes the record
// before it queues the job, so a job the API answered with an id is never lost, and a
// job that could not be queued is recorded failed rather than left pending forever.
type Service struct {
	Store  Store
	Runner Runner
	// Replicas, when set, holds a submission's answer until its record and task reached
	// the replicas; a job that did not is failed and refused, not accepted.
	Replicas Replicas
	// Now defaults to time.Now.
	Now func() time.Time
}

// Submit records and queues a job for an already resolved model version.
func (s *Service) Submit(ctx context.Context, model, version string, batch bool, input json.RawMessage) (Record, error) {
	rec := Record{
		ID:        uuid.NewString(),
		Status:    StatusCreated,
		Model:     model,
		Version:   version,
		Batch:     batch,
		Input:     input,
		CreatedAt: s.now(),
	}
	if err := s.Store.Create(ctx, rec); err != nil {
		return Record{}, fmt.Errorf("recording job: %w", err)
	}
	if err := s.Runner.Enqueue(ctx, rec); err != nil {
		// Best effort: when the store is down too, the record stays created, which the
		// client never saw an id for.
		_, _ = s.Store.Update(context.WithoutCancel(ctx), rec.ID, func(r *Record) error {
			return r.fail("the job could not be queued: "+err.Error(), s.now())
		})
		return Record{}, fmt.Errorf("queueing job: %w", err)
	}
	if s.Replicas != nil {
		if err := s.Replicas.Wait(ctx); err != nil {
			// The client gets no id, so the job must not run: a failed record makes a
			// worker drop its task. Should this write fail too, the job may still run
			// once; its client was told 503 and never saw its id.
			_, _ = s.Store.Update(context.WithoutCancel(ctx), rec.ID, func(r *Record) error {
				return r.fail("the job did not reach a replica in time: "+err.Error(), s.now())
			})
			return Record{}, fmt.Errorf("replicating job: %w", err)
		}
	}
	// The job is queued and will run whatever this write does, so its failure (the
	// store blinked, the client went away) must not answer an error: the client would
	// submit again and the job would run twice. A worker moves it on from created.
	updated, err := s.Store.UpdateFrom(context.WithoutCancel(ctx), rec, func(r *Record) error {
		if !r.move(StatusPending, s.now()) {
			return errNoChange // a worker already took it
		}
		return nil
	})
	if err == nil {
		rec = updated
	}
	return rec, nil
}

// Get returns a job's record.
func (s *Service) Get(ctx context.Context, id string) (Record, error) {
	return s.Store.Get(ctx, id)
}

// Cancel ends a job that has not finished with status cancelled, and asks the runner to
// drop it from the queue or stop running it. A finished job gives ErrFinished.
func (s *Service) Cancel(ctx context.Context, id string) (Record, error) {
	rec, err := s.Store.Update(ctx, id, func(r *Record) error {
		if !r.move(StatusCancelled, s.now()) {
			return fmt.Errorf("%w: job %s is %s", ErrFinished, id, r.Status)
		}
		return nil
	})
	if err != nil {
		return Record{}, err
	}
	if err := s.Runner.Abandon(ctx, id); err != nil {
		return rec, fmt.Errorf("job %s is cancelled, but the runner could not drop it: %w", id, err)
	}
	return rec, nil
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
