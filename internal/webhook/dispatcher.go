package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// Defaults of DispatcherOptions left at zero (and of the settings they come from).
const (
	DefaultConcurrency = 16
	DefaultMaxAge      = time.Hour
	// DefaultPollInterval costs Redis one short script per queue shard per worker
	// twice a second when no callback is due; a busy dispatcher asks again at once.
	DefaultPollInterval = 500 * time.Millisecond
	// FirstRetry is the wait before the second attempt; each later one doubles it, up
	// to MaxRetryWait.
	FirstRetry   = time.Second
	MaxRetryWait = 5 * time.Minute
)

// Outcomes of one attempt, as Observer hears them.
const (
	AttemptDelivered = "delivered"
	AttemptRefused   = "refused"   // the receiver answered, but not 2xx
	AttemptTimeout   = "timeout"   // it did not answer within the timeout
	AttemptForbidden = "forbidden" // the address is not allowed
	AttemptError     = "error"     // no answer: the connection failed
)

// Observer is told of every attempt and of every callback's end, for metrics.
type Observer interface {
	CallbackAttempt(outcome string)
	// CallbackDone gets job.CallbackDelivered or job.CallbackFailed.
	CallbackDone(state job.CallbackState)
}

// DispatcherOptions configure a Dispatcher. The zero value of each field is a
// documented default, save Store, Queue, Sender and Encode.
type DispatcherOptions struct {
	Store  job.Store
	Queue  job.CallbackQueue
	Sender *Sender
	// Encode is the body posted: the final record, as the API serves it.
	Encode func(job.Record) ([]byte, error)
	// Concurrency is how many callbacks are posted at once. 0 means
	// DefaultConcurrency.
	Concurrency int
	// MaxAge bounds the retries: a callback not delivered MaxAge after its job
	// finished is given up, failed. 0 means DefaultMaxAge.
	MaxAge time.Duration
	// PollInterval is how often an idle dispatcher asks the queue for due callbacks.
	// 0 means DefaultPollInterval.
	PollInterval time.Duration
	// Observer defaults to one that records nothing.
	Observer Observer
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Dispatcher posts the callbacks of finished jobs, each until it is delivered or too
// old, at least once: a callback is claimed from the queue with a lease, and one
// whose dispatcher died mid-post is claimed again once the lease ends. Every attempt
// at one callback carries the same webhook-id, the job's id, so a receiver can tell a
// repeat.
type Dispatcher struct {
	opts  DispatcherOptions
	lease time.Duration
	log   *slog.Logger
}

// NewDispatcher returns a Dispatcher; Run starts it.
func NewDispatcher(opts DispatcherOptions) *Dispatcher {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.Observer == nil {
		opts.Observer = nopObserver{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Dispatcher{
		opts: opts, log: opts.Logger,
		// Longer than an attempt may take with the record's writes after it, so a
		// live dispatcher's callback is not claimed twice.
		lease: opts.Sender.opts.Timeout + 5*time.Second,
	}
}

// Run posts due callbacks until ctx ends, then waits for the posts under way, which
// their timeout bounds.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, d.opts.Concurrency)
	timer := time.NewTimer(0)
	defer timer.Stop()
	failing := false // the queue could not be read: said once, not every poll
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		free := d.opts.Concurrency - len(slots)
		var ids []string
		if free > 0 {
			var err error
			ids, err = d.opts.Queue.ClaimCallbacks(ctx, time.Now(), d.lease, free)
			switch {
			case err != nil && ctx.Err() == nil && !failing:
				d.log.Warn("claiming callbacks; trying again every poll interval", "error", err)
				failing = true
			case err == nil && failing:
				d.log.Info("claiming callbacks again")
				failing = false
			}
		}
		for _, id := range ids {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				d.deliver(context.WithoutCancel(ctx), id)
			})
		}
		// A full claim may have left more due: ask again at once.
		wait := d.opts.PollInterval
		if free > 0 && len(ids) == free {
			wait = 0
		}
		timer.Reset(wait)
	}
}

// deliver makes one attempt at the callback of job id and records how it went: on
// the record, and in the queue, which holds it until it is delivered or given up.
func (d *Dispatcher) deliver(ctx context.Context, id string) {
	rec, err := d.opts.Store.Get(ctx, id)
	switch {
	case errors.Is(err, job.ErrNotFound):
		d.done(ctx, id) // expired (JOB_TTL): nothing left to post
		return
	case err != nil:
		d.log.Warn("reading a job for its callback; it is tried again when its lease ends", "job_id", id, "error", err)
		return
	case !rec.Due():
		d.done(ctx, id)
		return
	}
	body, err := d.opts.Encode(rec)
	if err != nil {
		d.log.Error("encoding a job for its callback", "job_id", id, "error", err)
		return
	}
	sendErr := d.opts.Sender.Send(ctx, rec.Callback.URL, rec.ID, body)
	d.opts.Observer.CallbackAttempt(outcome(sendErr))
	now := time.Now()
	deadline := rec.FinishedAt.Add(d.opts.MaxAge)
	state := job.CallbackDelivered
	if sendErr != nil {
		state = job.CallbackPending
		if !now.Before(deadline) {
			state = job.CallbackFailed
		}
	}
	updated, err := d.opts.Store.Update(ctx, id, func(r *job.Record) error {
		if !r.Due() {
			return errSettled // another dispatcher's lease ended under a slow write
		}
		r.Callback.Attempts++
		r.Callback.State = state
		switch {
		case sendErr == nil:
			r.Callback.DeliveredAt, r.Callback.LastError = now, ""
		case state == job.CallbackFailed:
			r.Callback.LastError = fmt.Sprintf("given up after %d attempts over %s; the last: %v", r.Callback.Attempts, d.opts.MaxAge, sendErr)
		default:
			r.Callback.LastError = sendErr.Error()
		}
		return nil
	})
	switch {
	case errors.Is(err, job.ErrNotFound), errors.Is(err, errSettled):
		d.done(ctx, id)
		return
	case err != nil:
		// The lease ends and the callback is posted again: at least once.
		d.log.Warn("recording a callback's attempt", "job_id", id, "error", err)
		return
	}
	if state != job.CallbackPending {
		d.opts.Observer.CallbackDone(state)
		if state == job.CallbackFailed {
			d.log.Warn("callback given up", "job_id", id, "url", rec.Callback.URL, "attempts", updated.Callback.Attempts, "error", sendErr)
		}
		d.done(ctx, id)
		return
	}
	next := now.Add(retryWait(updated.Callback.Attempts))
	if next.After(deadline) {
		next = deadline // one last attempt as the time runs out
	}
	if err := d.opts.Queue.RetryCallback(ctx, id, next); err != nil {
		d.log.Warn("rescheduling a callback; it is tried again when its lease ends", "job_id", id, "error", err)
	}
}

// errSettled aborts the write of an attempt at a callback no longer pending.
var errSettled = errors.New("callback settled")

func (d *Dispatcher) done(ctx context.Context, id string) {
	if err := d.opts.Queue.DoneCallback(ctx, id); err != nil {
		d.log.Warn("dequeueing a settled callback; it is read again when its lease ends", "job_id", id, "error", err)
	}
}

// retryWait is the wait after the nth failed attempt: FirstRetry, doubling, at most
// MaxRetryWait, less up to a fifth at random so that the retries of many callbacks
// that failed together (a receiver down) do not come back together.
func retryWait(n int) time.Duration {
	w := MaxRetryWait
	if n <= 20 {
		w = min(FirstRetry<<max(n-1, 0), MaxRetryWait)
	}
	return w - rand.N(w/5+1)
}

// outcome names an attempt's outcome for the Observer.
func outcome(err error) string {
	switch {
	case err == nil:
		return AttemptDelivered
	case errors.Is(err, ErrNotAllowed):
		return AttemptForbidden
	case errors.Is(err, ErrTimeout):
		return AttemptTimeout
	case errors.Is(err, errAnswered):
		return AttemptRefused
	}
	return AttemptError
}

type nopObserver struct{}

func (nopObserver) CallbackAttempt(string)         {}
func (nopObserver) CallbackDone(job.CallbackState) {}
