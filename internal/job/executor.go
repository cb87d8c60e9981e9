package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/telemetry"
)

// Predictor runs a batch of inputs through one model version. An input error names the
// item at fault by its index (pipeline.InputError).
type Predictor interface {
	Predict(ctx context.Context, model, version string, items []json.RawMessage) ([]json.RawMessage, error)
}

// EachPredictor is a Predictor that also runs a batch whose items fail alone (a job
// with Record.EachItem): results holds nil for each item in failed, whose InputErrors
// name the items by their index in items.
type EachPredictor interface {
	Predictor
	PredictEach(ctx context.Context, model, version string, items []json.RawMessage) (results []json.RawMessage, failed []*pipeline.InputError, err error)
}

// Observer is told when jobs start and finish, for metrics.
type Observer interface {
	// Started gets the record as the job starts running: StartedAt is set.
	Started(rec Record)
	Finished(rec Record)
}

// Executor runs one job from its record. It is the single place where a job runs: the
// in-process runner and the queue worker both call Execute.
type Executor struct {
	Store     Store
	Predictor Predictor
	// Observer defaults to one that records nothing.
	Observer Observer
	// Now defaults to time.Now.
	Now func() time.Time
	// Tracer, when set, gives each run a consumer span, child of the submission's
	// trace context when ctx carries one; nil: no span.
	Tracer trace.Tracer
	// RunningAfter is how long a job started by ExecuteFresh runs before the store
	// marks it running. 0 means DefaultRunningAfter; a negative value marks it running
	// before it runs, as Execute does.
	RunningAfter time.Duration
	// MaxResultBytes caps a result: a larger one fails the job (*ResultTooLargeError)
	// rather than be kept for JOB_TTL and sent whole with the record each time it is
	// read. 0: no cap.
	MaxResultBytes int64
	// Code names the code a failed run is recorded with beside its message
	// (Record.Code), for clients to switch on; nil records none.
	Code func(error) string
}

// ResultTooLargeError is a job's result over Executor.MaxResultBytes.
type ResultTooLargeError struct {
	Size, Max int64
	Batch     bool
}

func (e *ResultTooLargeError) Error() string {
	remedy := "send less data"
	if e.Batch {
		remedy = "split the batch into smaller jobs"
	}
	return fmt.Sprintf("the result takes %d bytes, more than MAX_RESPONSE_BYTES (%d) allows; %s", e.Size, e.Max, remedy)
}

// DefaultRunningAfter is RunningAfter when it is 0: longer than most predictions, so
// that they are recorded once, and short enough that a poll soon sees a long job
// running.
const DefaultRunningAfter = 100 * time.Millisecond

// Execute runs the job once if it has not finished. Delivery may be at least once, but
// the result is written once: a job already final (done, or cancelled) is not run
// again, and a result computed after another delivery finished the job is discarded.
// A job found running is run again, since that is how a crashed worker's job comes back.
//
// A pipeline error ends the job failed. Execute returns an error only when the job's
// outcome could not be recorded (the store failed, or ctx ended mid-run): the job is
// then left running, for the queue to deliver again.
func (e *Executor) Execute(ctx context.Context, id string) error {
	return e.execute(ctx, id, nil)
}

// ExecuteFrom is Execute for a runner that holds the job's record as it was queued
// (the queue's task carries it): a store may then mark the job running without
// reading the record first. A record that has changed since (cancelled, or taken by
// another delivery) is read again, so held may be stale.
func (e *Executor) ExecuteFrom(ctx context.Context, held Record) error {
	return e.execute(ctx, held.ID, &held)
}

// ExecuteFresh is ExecuteFrom for a first delivery, whose held record is the one
// submitted, pending: the job runs at once, and the store marks it running only if it
// has not finished within RunningAfter. A job that finishes sooner is recorded once,
// from pending to its final status with its start time, which saves a store round
// trip per job and one before the model runs (Celery, likewise, records no started
// state by default). A job found final or gone when it would be marked running is
// stopped and its result discarded. A redelivery should use ExecuteFrom: its job
// has likely run, and it is checked before it runs again.
func (e *Executor) ExecuteFresh(ctx context.Context, held Record) error {
	after := e.RunningAfter
	if after == 0 {
		after = DefaultRunningAfter
	}
	if after < 0 || held.Status != StatusPending || held.expired(e.now()) {
		return e.execute(ctx, held.ID, &held)
	}
	rec := held
	rec.move(StatusRunning, e.now())
	obs := e.observer()
	obs.Started(rec)

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		marked  Record
		markErr error
		done    = make(chan struct{})
	)
	timer := time.AfterFunc(after, func() {
		defer close(done)
		marked, markErr = e.Store.UpdateFrom(ctx, held, startAt(rec.StartedAt))
		if gone(markErr) {
			stop() // cancelled, or taken by another delivery: its result would be discarded
		}
	})
	result, runErr := e.runSpanned(runCtx, rec)
	prev := held
	if !timer.Stop() {
		<-done
		switch {
		case markErr == nil:
			prev = marked
		case gone(markErr):
			return nil
		}
		// Any other failure to mark it is the store's: the final write tries from held.
	}
	if runErr != nil && ctx.Err() != nil {
		return fmt.Errorf("job %s interrupted: %w", held.ID, ctx.Err())
	}
	return e.finish(ctx, prev, rec.StartedAt, result, runErr, obs)
}

// startAt is the update that marks a job running from at, or errNoChange when it has
// finished.
func startAt(at time.Time) func(*Record) error {
	return func(r *Record) error {
		if r.Status.Final() {
			return errNoChange
		}
		if r.expired(at) {
			return r.fail(r.deadlineMessage(), at)
		}
		setRunning(r, at)
		return nil
	}
}

// gone reports whether an update found the job finished, cancelled or expired, so
// that there is nothing left to run or record.
func gone(err error) bool {
	return errors.Is(err, errNoChange) || errors.Is(err, ErrNotFound)
}

// setRunning moves a record that is not running yet to running, from at.
func setRunning(r *Record, at time.Time) {
	if r.Status != StatusRunning {
		r.move(StatusRunning, at)
	}
}

func (e *Executor) execute(ctx context.Context, id string, held *Record) error {
	start := startAt(e.now())
	var rec Record
	var err error
	if held != nil {
		rec, err = e.Store.UpdateFrom(ctx, *held, start)
	} else {
		rec, err = e.Store.Update(ctx, id, start)
	}
	if gone(err) {
		return nil // finished, cancelled or expired: nothing to run
	}
	if err != nil {
		return fmt.Errorf("starting job %s: %w", id, err)
	}
	obs := e.observer()
	if rec.Status == StatusFailed {
		obs.Finished(rec) // its deadline passed: failed, not run
		return nil
	}
	obs.Started(rec)

	result, runErr := e.runSpanned(ctx, rec)
	if runErr != nil && ctx.Err() != nil {
		return fmt.Errorf("job %s interrupted: %w", id, ctx.Err())
	}
	return e.finish(ctx, rec, rec.StartedAt, result, runErr, obs)
}

// outcome is what a run produced: the result, and the items that failed alone.
type outcome struct {
	result json.RawMessage
	failed []ItemError
}

// runSpanned runs the job in a consumer span.
func (e *Executor) runSpanned(ctx context.Context, rec Record) (outcome, error) {
	ctx, span := startSpan(ctx, e.Tracer, telemetry.SpanJobRun, trace.SpanKindConsumer, rec)
	out, err := e.run(ctx, rec)
	telemetry.End(span, err)
	return out, err
}

// finish records the run's outcome from prev, the record as last written or read; a
// record still pending (ExecuteFresh) is recorded as started at started.
func (e *Executor) finish(ctx context.Context, prev Record, started time.Time, result outcome, runErr error, obs Observer) error {
	id := prev.ID
	final, err := e.Store.UpdateFrom(context.WithoutCancel(ctx), prev, func(r *Record) error {
		if !r.Status.Final() {
			setRunning(r, started)
		}
		to := StatusSucceeded
		if runErr != nil {
			to = StatusFailed
		}
		if !r.move(to, e.now()) {
			return errNoChange // cancelled, or another delivery won
		}
		if runErr != nil {
			r.Error = failure(runErr, r.Batch)
			if e.Code != nil {
				r.Code = e.Code(runErr)
			}
		} else {
			r.Result, r.ItemErrors = result.result, result.failed
		}
		return nil
	})
	switch {
	case gone(err):
		return nil
	case err != nil:
		return fmt.Errorf("recording job %s: %w", id, err)
	}
	obs.Finished(final)
	return nil
}

// Fail ends a job failed with msg unless it has already finished: for runners that
// give up on a job without running it to its end (a timeout, retries exhausted). It
// reports whether this call ended the job.
func (e *Executor) Fail(ctx context.Context, id, msg string) (bool, error) {
	rec, err := e.Store.Update(ctx, id, func(r *Record) error { return r.fail(msg, e.now()) })
	switch {
	case gone(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("failing job %s: %w", id, err)
	}
	e.observer().Finished(rec)
	return true, nil
}

func (e *Executor) run(ctx context.Context, rec Record) (outcome, error) {
	items, err := rec.Items()
	if err != nil {
		return outcome{}, fmt.Errorf("reading the job's input: %w", err)
	}
	var out []json.RawMessage
	var failed []ItemError
	if rec.Batch && rec.EachItem {
		out, failed, err = e.predictEach(ctx, rec, items)
	} else {
		out, err = e.Predictor.Predict(ctx, rec.Model, rec.Version, items)
	}
	if err != nil {
		return outcome{}, err
	}
	var result json.RawMessage
	if !rec.Batch {
		if len(out) != 1 {
			return outcome{}, fmt.Errorf("the model returned %d results for one input", len(out))
		}
		result = out[0]
	} else if result, err = EncodeJSON(out); err != nil { // a nil result is written null
		return outcome{}, err
	}
	size := int64(len(result))
	for _, f := range failed {
		size += int64(len(f.Detail)) + 32 // and its members' names
	}
	if limit := e.MaxResultBytes; limit > 0 && size > limit {
		return outcome{}, &ResultTooLargeError{Size: size, Max: limit, Batch: rec.Batch}
	}
	return outcome{result: result, failed: failed}, nil
}

// predictEach runs a batch whose items fail alone, wording each failure as a batch's
// refusal names its item.
func (e *Executor) predictEach(ctx context.Context, rec Record, items []json.RawMessage) ([]json.RawMessage, []ItemError, error) {
	ep, ok := e.Predictor.(EachPredictor)
	if !ok {
		return nil, nil, fmt.Errorf("%w: this runner cannot run a batch whose items fail alone (on_error continue)", pipeline.ErrExecution)
	}
	out, bad, err := ep.PredictEach(ctx, rec.Model, rec.Version, items)
	if err != nil {
		return nil, nil, err
	}
	var failed []ItemError
	for _, ie := range bad {
		failed = append(failed, ItemError{Index: ie.Item, Detail: failure(ie, true)})
	}
	return out, failed, nil
}

func (e *Executor) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Executor) observer() Observer {
	if e.Observer != nil {
		return e.Observer
	}
	return nopObserver{}
}

type nopObserver struct{}

func (nopObserver) Started(Record)  {}
func (nopObserver) Finished(Record) {}

// failure words a job's error for its record. An input error names the item as the
// submission did: "data" for a single job, "items[i]" for a batch.
func failure(err error, batch bool) string {
	var ie *pipeline.InputError
	if !errors.As(err, &ie) {
		return err.Error()
	}
	if batch {
		return ie.In("items[" + strconv.Itoa(ie.Item) + "]")
	}
	return ie.In("data")
}
