package queue

import (
	"context"
	"os"
	"regexp"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/redistest"
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
	runner := NewJobRunner(e.runner, e.store, "v9.9.9")
	if _, ok := runner.(*Submitter); ok {
		t.Fatal("a Submitter for an unknown layout")
	}
	e.svc = &job.Service{Store: e.store, Runner: runner}
	rt := &redistest.RoundTrips{}
	e.workerHook = rt
	e.startWorker(t, &echo{}, WorkerOptions{PlainAsynq: true, PollInterval: 100 * time.Millisecond, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute})
	time.Sleep(500 * time.Millisecond)
	before := rt.Count()
	time.Sleep(time.Second)
	if n := rt.Count() - before; n > 40 {
		t.Errorf("an idle plain worker made %d round trips in a second; want about one per poll interval", n)
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
	rt := &redistest.RoundTrips{}
	e.workerHook = rt
	var fellBack atomic.Int32
	w := e.newWorker(t, &echo{}, WorkerOptions{PollInterval: time.Minute, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute,
		FellBack: func() { fellBack.Add(1) }})
	w.waker.queues = map[string]queueKeys{"asynq:{a-layout-of-another-version}:pending": {}}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	deadline := time.Now().Add(10 * time.Second)
	for fellBack.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if fellBack.Load() != 1 {
		t.Fatalf("the guard told %d fallbacks, want 1", fellBack.Load())
	}
	time.Sleep(200 * time.Millisecond)
	before := rt.Count()
	time.Sleep(time.Second)
	if n := rt.Count() - before; n > 20 {
		t.Errorf("after the fallback an idle worker made %d round trips in a second", n)
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
