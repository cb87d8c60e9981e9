package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/telemetry"
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
	Store Store
	// Submitter records and queues the jobs, and drops the cancelled ones.
	Submitter Submitter
	// Replicas, when set, holds a submission's answer until its record and task reached
	// the replicas; a job that did not is failed and refused, not accepted.
	Replicas Replicas
	// Waiters, when set, lets Wait hold a read until the job finishes; it must be woken
	// by whatever learns of final records (see Waiters). Without it Wait is Get.
	Waiters *Waiters
	// Now defaults to time.Now.
	Now func() time.Time
	// Tracer, when set, gives each submission a producer span, whose context the
	// runner carries to the job's run; nil: no span.
	Tracer trace.Tracer
	// AcceptTimeout bounds how long an idempotent submission is taken as still being
	// accepted after its record is written (queueing, the replicas' wait): a duplicate
	// in that time is ErrIdempotencyInProgress, one after it gets the job, should the
	// first submitter have died before it said whether it was accepted. 0 means
	// DefaultAcceptTimeout.
	AcceptTimeout time.Duration
}

// DefaultAcceptTimeout is Service.AcceptTimeout's default.
const DefaultAcceptTimeout = time.Minute

// Submission is what a client submits, with the key it submits under.
type Submission struct {
	// Owner names the submitting key (Record.Owner); "" for none.
	Owner   string
	Model   string
	Version string
	Batch   bool
	// EachItem makes a batch's items fail alone (Record.EachItem).
	EachItem bool
	Input    json.RawMessage
	// Idempotency, when set, makes a repeat of the submission answer with the job the
	// first one created instead of creating another.
	Idempotency *Idempotency
	// Priority is how soon the job should start; "" is PriorityNormal.
	Priority Priority
	// Deadline, when not nil, is when the job must have started.
	Deadline *time.Time
	// CallbackURL, when set, is posted the job's final record (Record.Callback). The
	// caller has checked it against the hosts callbacks may go to.
	CallbackURL string
}

// Submit records and queues a job of no key for an already resolved model version.
func (s *Service) Submit(ctx context.Context, model, version string, batch bool, input json.RawMessage) (Record, error) {
	return s.SubmitFor(ctx, "", model, version, batch, input)
}

// SubmitFor is Submit for the key that owner names (Record.Owner): the store refuses
// the job with ErrJobLimit when that key has as many unfinished jobs as it may, and
// with a *BytesLimitError (or ErrJobTooLarge) when its records would pass the key's
// byte budget.
func (s *Service) SubmitFor(ctx context.Context, owner, model, version string, batch bool, input json.RawMessage) (Record, error) {
	rec, _, err := s.SubmitWith(ctx, Submission{Owner: owner, Model: model, Version: version, Batch: batch, Input: input})
	return rec, err
}

// SubmitWith is SubmitFor for a whole Submission. With an Idempotency whose key its
// owner used within the store's TTL it creates nothing: it returns a record holding
// only the first job's id, with replayed true, or ErrIdempotencyMismatch when the key
// came with another body, or an *InProgressError while the first submission is being
// accepted.
func (s *Service) SubmitWith(ctx context.Context, sub Submission) (rec Record, replayed bool, err error) {
	rec = Record{
		ID:        uuid.NewString(),
		Status:    StatusCreated,
		Owner:     sub.Owner,
		Model:     sub.Model,
		Version:   sub.Version,
		Batch:     sub.Batch,
		EachItem:  sub.Batch && sub.EachItem,
		Input:     sub.Input,
		Priority:  sub.Priority,
		Deadline:  sub.Deadline,
		CreatedAt: s.now(),
	}
	if sub.Idempotency != nil {
		for !s.Submitter.SameShard(rec.ID, rec.Owner, *sub.Idempotency) {
			rec.ID = uuid.NewString()
		}
	}
	if sub.CallbackURL != "" {
		rec.Callback = Callback{URL: sub.CallbackURL, State: CallbackPending}
	}
	ctx, span := startSpan(ctx, s.Tracer, telemetry.SpanJobSend, trace.SpanKindProducer, rec)
	defer func() { telemetry.End(span, err) }()
	if s.Waiters != nil {
		drawn := rec.ID
		s.Waiters.Submitting(drawn)
		defer func() {
			if err != nil || replayed {
				s.Waiters.Forget(drawn) // no job was made under it
			}
		}()
	}
	return s.submit(ctx, rec, sub.Idempotency)
}

// submit records and queues rec through the Submitter, with its idempotency key when
// idem is set. The key is written with the record, in the same atomic step, so that a
// submitter that dies before it answers leaves a key that finds the job it created; it
// is pending (a duplicate is told to retry) until the submission is accepted, or
// AcceptTimeout has passed.
func (s *Service) submit(ctx context.Context, rec Record, idem *Idempotency) (_ Record, replayed bool, err error) {
	var once *Once
	if idem != nil {
		once = &Once{Idempotency: *idem, Until: s.now().Add(s.acceptTimeout()), Held: s.Replicas != nil}
	}
	written, use, err := s.Submitter.Submit(ctx, rec, once)
	if err != nil {
		return Record{}, false, err
	}
	if use != nil {
		rec, err := use.answer(*idem, s.now())
		return rec, err == nil, err
	}
	// Recorded and queued in one step, unheld, the key was written accepted; else it
	// waits for this answer.
	settle := once != nil && (once.Held || written.Status == StatusCreated)
	err = s.replicate(ctx, rec.ID)
	if err == nil && written.Status == StatusCreated {
		written = s.pending(ctx, written)
	}
	if settle {
		// Best effort either way: a key left pending is taken as accepted once
		// AcceptTimeout has passed, and its job failed when it was refused.
		_ = s.Submitter.Settle(context.WithoutCancel(ctx), rec.Owner, *idem, rec.ID, err == nil)
	}
	if err != nil {
		return Record{}, false, err
	}
	return written, false, nil
}

// pending moves a job the Submitter queued, its record written created, to pending.
// The job is queued and will run whatever this write does, so its failure (the store
// blinked, the client went away) must not answer an error: the client would submit
// again and the job would run twice. A worker moves it on from created.
func (s *Service) pending(ctx context.Context, rec Record) Record {
	updated, err := s.Store.UpdateFrom(context.WithoutCancel(ctx), rec, func(r *Record) error {
		if !r.move(StatusPending, s.now()) {
			return errNoChange // a worker already took it
		}
		return nil
	})
	if err != nil {
		return rec
	}
	return updated
}

func (s *Service) acceptTimeout() time.Duration {
	if s.AcceptTimeout > 0 {
		return s.AcceptTimeout
	}
	return DefaultAcceptTimeout
}

// Refused reports whether err is a store's refusal of the submitting key's job, worded
// for its client.
func Refused(err error) bool {
	return errors.Is(err, ErrJobLimit) || errors.Is(err, ErrJobBytesLimit) || errors.Is(err, ErrJobTooLarge)
}

// replicate waits, when Replicas is set, until the job's record and task reached the
// replicas, and fails the job when they did not.
func (s *Service) replicate(ctx context.Context, id string) error {
	if s.Replicas == nil {
		return nil
	}
	err := s.Replicas.Wait(ctx, id)
	if err == nil {
		return nil
	}
	// The client gets no id, so the job must not run: a failed record makes a worker
	// drop its task. Should this write fail too, the job may still run once; its
	// client was told 503 and never saw its id.
	_, _ = s.Store.Update(context.WithoutCancel(ctx), id, func(r *Record) error {
		return r.fail("the job did not reach a replica in time: "+err.Error(), s.now())
	})
	return fmt.Errorf("replicating job: %w", err)
}

// Get returns a job's record.
func (s *Service) Get(ctx context.Context, id string) (Record, error) {
	return s.Store.Get(ctx, id)
}

// MaxWait is the longest wait Wait honours; a longer one is cut to it.
const MaxWait = 30 * time.Second

// Wait returns a job's record once it is final, or as it is when d passes, ctx ends
// (the client went away) or the waits are closed (shutdown). It reads the record after
// registering the wait, so a job that finished in between is not missed, and again on
// every wake that did not bring the final record; a job the Waiters tracks as
// submitted here and unfinished is read only if the wait ends without its final
// record. When the waits are full it answers at once, as Get.
func (s *Service) Wait(ctx context.Context, id string, d time.Duration) (Record, error) {
	if d <= 0 || s.Waiters == nil {
		return s.Get(ctx, id)
	}
	d = min(d, MaxWait)
	wt, ok := s.Waiters.add(id)
	if !ok {
		return s.Get(ctx, id)
	}
	defer s.Waiters.remove(id, wt)
	timer := time.NewTimer(d)
	defer timer.Stop()
	closing := s.Waiters.closing()
	// A job submitted here and not heard of as final since is unfinished: the wait
	// starts without reading it, and reads it only when it ends without the final
	// record.
	unread := s.Waiters.unfinished(id)
	for {
		var rec Record
		if !unread {
			var err error
			if rec, err = s.Store.Get(ctx, id); err != nil || rec.Status.Final() {
				return rec, err
			}
		}
		select {
		case <-wt.woken:
			if f := s.Waiters.finalOf(wt); f != nil {
				return *f, nil
			}
			unread = false
			continue
		case <-timer.C:
		case <-ctx.Done():
		case <-closing:
		}
		if unread {
			return s.Store.Get(context.WithoutCancel(ctx), id)
		}
		return rec, nil
	}
}

// EndWaits ends every Wait in progress and makes later ones answer at once.
func (s *Service) EndWaits() {
	if s.Waiters != nil {
		s.Waiters.Close()
	}
}

// Cancel ends a job that has not finished with status cancelled, and asks the runner to
// drop it from the queue or stop running it. A finished job gives ErrFinished. It
// cancels any job, whoever submitted it: for an admin, or the service itself.
func (s *Service) Cancel(ctx context.Context, id string) (Record, error) {
	return s.cancel(ctx, id, nil)
}

// CancelFor is Cancel for the key that owner names: a job that key did not submit is
// ErrNotFound, worded as for an id that does not exist, so that a key cannot learn
// which ids other keys' jobs have.
func (s *Service) CancelFor(ctx context.Context, owner, id string) (Record, error) {
	return s.cancel(ctx, id, &owner)
}

// cancel is Cancel of a job of owner, or of any job when owner is nil.
func (s *Service) cancel(ctx context.Context, id string, owner *string) (Record, error) {
	rec, err := s.Store.Update(ctx, id, func(r *Record) error {
		if owner != nil && r.Owner != *owner {
			// Before the status check: a 409 job_finished would confirm the id.
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if !r.move(StatusCancelled, s.now()) {
			return fmt.Errorf("%w: job %s is %s", ErrFinished, id, r.Status)
		}
		return nil
	})
	if err != nil {
		return Record{}, err
	}
	if err := s.Submitter.Abandon(ctx, id); err != nil {
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
