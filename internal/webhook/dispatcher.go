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
	// Concurrency is how many callbacks are posted at once, shared fairly between
	// keys (see lanes): briefly up to twice as many while a key that came late
	// takes its share. 0 means DefaultConcurrency.
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
// repeat. Its attempts are shared between keys and receivers as lanes describes.
type Dispatcher struct {
	opts  DispatcherOptions
	lease time.Duration
	lanes *lanes
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
		lanes: newLanes(opts.Concurrency, opts.Sender.opts.Timeout),
	}
}

// Run posts due callbacks until ctx ends, then waits for the posts under way, which
// their timeout bounds. It claims when the poll interval has passed, and as soon as
// an attempt ends.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	failing := false // the queue could not be read: said once, not every poll
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-d.lanes.freed:
		}
		claim := d.lanes.claim(time.Now(), d.lease)
		var got []job.DueCallback
		if claim.N > 0 {
			var err error
			got, err = d.opts.Queue.ClaimCallbacks(ctx, claim)
			switch {
			case err != nil && ctx.Err() == nil && !failing:
				d.log.Warn("claiming callbacks; trying again every poll interval", "error", err)
				failing = true
			case err == nil && failing:
				d.log.Info("claiming callbacks again")
				failing = false
			}
		}
		for _, c := range got {
			d.lanes.take(c.Owner)
			wg.Go(func() {
				defer d.lanes.put(c.Owner)
				d.deliver(context.WithoutCancel(ctx), c)
			})
		}
		// A full claim may have left more due: ask again at once.
		wait := d.opts.PollInterval
		if claim.N > 0 && len(got) == claim.N {
			wait = 0
		}
		timer.Reset(wait)
	}
}

// deliver makes one attempt at the callback c and records how it went: on the
// record, and in the queue, which holds it until it is delivered or given up. A
// receiver in its slow lane with an attempt under way gets none: the callback waits
// its turn, in the queue.
func (d *Dispatcher) deliver(ctx context.Context, c job.DueCallback) {
	rec, err := d.opts.Store.Get(ctx, c.ID)
	switch {
	case errors.Is(err, job.ErrNotFound):
		d.done(ctx, c) // expired (JOB_TTL): nothing left to post
		return
	case err != nil:
		d.log.Warn("reading a job for its callback; it is tried again when its lease ends", "job_id", c.ID, "error", err)
		return
	}
	// The record's key: a callback queued by an earlier version moves to its lane.
	cb := job.DueCallback{ID: c.ID, Owner: rec.Owner}
	if !rec.Due() {
		d.done(ctx, cb)
		return
	}
	body, err := d.opts.Encode(rec)
	if err != nil {
		d.log.Error("encoding a job for its callback", "job_id", c.ID, "error", err)
		return
	}
	origin := rec.Callback.URL
	if t, err := parseTarget(origin); err == nil {
		origin = t.origin
	}
	deadline := rec.FinishedAt.Add(d.opts.MaxAge)
	ok, probe, wait := d.lanes.enter(origin)
	if !ok {
		switch now := time.Now(); {
		case !now.Before(deadline):
			d.record(ctx, cb, rec.Callback.URL, false, errWaited)
		case now.Add(wait).After(deadline):
			d.retry(ctx, cb, deadline) // its last chance, as for a retry
		default:
			d.retry(ctx, cb, now.Add(wait))
		}
		return
	}
	sendErr := d.opts.Sender.Send(ctx, rec.Callback.URL, rec.ID, body)
	slowed, recovered := d.lanes.leave(origin, probe, errors.Is(sendErr, ErrTimeout), time.Now())
	switch {
	case slowed:
		d.log.Warn("a receiver did not answer in time: its callbacks go one at a time until it answers, the others waiting their turn", "receiver", origin, "timeout", d.opts.Sender.opts.Timeout)
	case recovered:
		d.log.Info("a receiver answers again: its callbacks go at once", "receiver", origin)
	}
	d.opts.Observer.CallbackAttempt(outcome(sendErr))
	d.record(ctx, cb, rec.Callback.URL, true, sendErr)
}

// errWaited is why a callback held back in its receiver's slow lane until its time
// ran out is given up unattempted.
var errWaited = errors.New("it waited its turn behind attempts at a receiver that did not answer in time, until its time ran out")

// record writes how the callback cb went on its record: the attempt made, which
// ended in sendErr, or when attempted is false its end unattempted, sendErr saying
// why. The callback is delivered, pending a retry, or failed: at once when the
// address was refused (a retry would be refused as well), else once WEBHOOK_MAX_AGE
// has passed since its job finished.
func (d *Dispatcher) record(ctx context.Context, cb job.DueCallback, url string, attempted bool, sendErr error) {
	now := time.Now()
	var deadline time.Time
	updated, err := d.opts.Store.Update(ctx, cb.ID, func(r *job.Record) error {
		if !r.Due() {
			return errSettled // another dispatcher's lease ended under a slow write
		}
		deadline = r.FinishedAt.Add(d.opts.MaxAge)
		cbk := &r.Callback
		switch {
		case !attempted:
			cbk.State = job.CallbackFailed
			last := ""
			if cbk.LastError != "" {
				last = "; the last attempt: " + cbk.LastError
			}
			cbk.LastError = fmt.Sprintf("given up after %d attempts over %s: %v%s", cbk.Attempts, d.opts.MaxAge, sendErr, last)
		case sendErr == nil:
			cbk.Attempts++
			cbk.State, cbk.DeliveredAt, cbk.LastError = job.CallbackDelivered, now, ""
		case errors.Is(sendErr, ErrNotAllowed):
			cbk.Attempts++
			cbk.State = job.CallbackFailed
			cbk.LastError = fmt.Sprintf("refused, and not retried: %v", sendErr)
		case !now.Before(deadline):
			cbk.Attempts++
			cbk.State = job.CallbackFailed
			cbk.LastError = fmt.Sprintf("given up after %d attempts over %s; the last: %v", cbk.Attempts, d.opts.MaxAge, sendErr)
		default:
			cbk.Attempts++
			cbk.State = job.CallbackPending
			cbk.LastError = sendErr.Error()
		}
		return nil
	})
	switch {
	case errors.Is(err, job.ErrNotFound), errors.Is(err, errSettled):
		d.done(ctx, cb)
		return
	case err != nil:
		// The lease ends and the callback is posted again: at least once.
		d.log.Warn("recording a callback's attempt", "job_id", cb.ID, "error", err)
		return
	}
	if state := updated.Callback.State; state != job.CallbackPending {
		d.opts.Observer.CallbackDone(state)
		if state == job.CallbackFailed {
			d.log.Warn("callback given up", "job_id", cb.ID, "url", url, "attempts", updated.Callback.Attempts, "error", updated.Callback.LastError)
		}
		d.done(ctx, cb)
		return
	}
	next := now.Add(retryWait(updated.Callback.Attempts))
	if next.After(deadline) {
		next = deadline // one last attempt as the time runs out
	}
	d.retry(ctx, cb, next)
}

func (d *Dispatcher) retry(ctx context.Context, cb job.DueCallback, at time.Time) {
	if err := d.opts.Queue.RetryCallback(ctx, cb, at); err != nil {
		d.log.Warn("rescheduling a callback; it is tried again when its lease ends", "job_id", cb.ID, "error", err)
	}
}

// errSettled aborts the write of an attempt at a callback no longer pending.
var errSettled = errors.New("callback settled")

func (d *Dispatcher) done(ctx context.Context, cb job.DueCallback) {
	if err := d.opts.Queue.DoneCallback(ctx, cb); err != nil {
		d.log.Warn("dequeueing a settled callback; it is read again when its lease ends", "job_id", cb.ID, "error", err)
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
