package queue

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// TestLayoutVersion: the asynq this binary is built with is the one whose layout the
// Submitter writes and the waker recognises. It fails on an upgrade of asynq in
// go.mod, whose layout must be checked (TestSubmitterAsAsynq, TestTaskMessageAsAsynq,
// TestWakeUp) before LayoutVersion follows it.
func TestLayoutVersion(t *testing.T) {
	mod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(asynqModule) + ` (\S+)`).FindSubmatch(mod)
	if m == nil || string(m[1]) != LayoutVersion {
		t.Fatalf("go.mod requires asynq %q; inferd's layout is asynq %s's", m, LayoutVersion)
	}
	if v := AsynqVersion(); !LayoutKnown(v) {
		t.Fatalf("built with asynq %q; inferd's layout is asynq %s's", v, LayoutVersion)
	}
	for _, v := range []string{"v0.26.1", "v0.27.0", "v0.25.1", "(devel)"} {
		if LayoutKnown(v) {
			t.Errorf("LayoutKnown(%q) = true", v)
		}
	}
}

// TestPlainAsynq: under an asynq whose layout inferd does not know, a server queues
// through asynq's own client and a worker polls every PollInterval, as plain asynq
// does, rather than a thousand times a second; jobs still run.
func TestPlainAsynq(t *testing.T) {
	e := newEnv(t)
	runner := NewJobSubmitter(e.runner, e.store, "v9.9.9")
	if _, ok := runner.(*Submitter); ok {
		t.Fatal("a Submitter for an unknown layout")
	}
	e.svc = &job.Service{Store: e.store, Submitter: runner}
	polls := &emptyDequeues{dequeue: newWaker([]string{e.tasks.Queue}, 0, nil), at: make(chan time.Time, 64)}
	e.workerHook = polls
	poll := 100 * time.Millisecond
	e.startWorker(t, &echo{}, WorkerOptions{PlainAsynq: true, PollInterval: poll, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute})
	// asynq sleeps 0.5 to 1.5 poll intervals after an empty dequeue: five gaps take at
	// least 2.5 intervals, where a worker that does not wait makes five in milliseconds.
	var first, last time.Time
	for i := range 6 {
		select {
		case last = <-polls.at:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d empty dequeues in 10s: the plain worker does not poll", i)
		}
		if i == 0 {
			first = last
		}
	}
	if d := last.Sub(first); d < 5*poll/2 {
		t.Errorf("an idle plain worker made 6 empty dequeues in %s; want about one per poll interval (%s)", d, poll)
	}
	for range 3 {
		rec := e.submit(t, false, `1`)
		e.waitStatus(t, rec.ID, job.StatusSucceeded, 10*time.Second)
	}
}

// TestWakeGuard: a worker whose waker no longer recognises asynq's dequeue (as after
// an upgrade of asynq that renamed its keys) notices the flood of empty answers, falls
// back to polling every PollInterval, says so once, and still runs jobs, announced
// ones without waiting for a poll.
func TestWakeGuard(t *testing.T) {
	e := newEnv(t)
	var fellBack atomic.Int32
	w := e.newWorker(t, &echo{}, WorkerOptions{PollInterval: time.Minute, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute,
		FellBack: func() { fellBack.Add(1) }})
	w.waker.queues = map[string]queueKeys{"asynq:{a-layout-of-another-version}:pending": {}}
	h := watchHolds(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	// No dequeue is recognised, so nothing is held until the guard falls back, which
	// it tells first; from then on an empty answer is held for the poll interval
	// rather than asked again at once.
	h.await(t, 0, 10*time.Second)
	if fellBack.Load() != 1 {
		t.Fatalf("the guard told %d fallbacks, want 1", fellBack.Load())
	}
	start := time.Now()
	for range 3 {
		rec := e.submit(t, false, `1`)
		e.waitStatus(t, rec.ID, job.StatusSucceeded, 10*time.Second)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("three announced jobs took %s: they waited for polls", d)
	}
	if fellBack.Load() != 1 {
		t.Errorf("the guard told %d fallbacks, want 1", fellBack.Load())
	}
}

// asynqHash is a task's hash as Redis holds it, but for the fields that differ by
// task and moment.
func asynqHash(t *testing.T, e *env, id string) map[string]string {
	t.Helper()
	h, err := e.rc.HGetAll(context.Background(), taskKey(e.tasks.Queue, id)).Result()
	if err != nil || len(h) == 0 {
		t.Fatalf("task %s: %v %v", id, h, err)
	}
	for _, k := range []string{"msg", "pending_since"} {
		if _, ok := h[k]; ok {
			h[k] = "(set)"
		}
	}
	return h
}

// keysOf lists a hash's fields.
func keysOf(h map[string]string) []string {
	var out []string
	for k := range h {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// emptyDequeues is a go-redis hook that sends the time of each dequeue script of
// dequeue's queue that found nothing, dropping them while at is full.
type emptyDequeues struct {
	dequeue *waker // recognises the script
	at      chan time.Time
}

func (d *emptyDequeues) DialHook(next redis.DialHook) redis.DialHook { return next }

func (d *emptyDequeues) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (d *emptyDequeues) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if errors.Is(err, redis.Nil) && isScript(cmd) && d.dequeue.isDequeue(cmd) {
			select {
			case d.at <- time.Now():
			default:
			}
		}
		return err
	}
}
