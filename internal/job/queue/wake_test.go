package queue

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/redistest"
)

// TestWakeUp checks that an idle worker waits for announcements rather than polling,
// and starts an announced job at once: with a poll interval of a minute, it must make
// almost no round trips while idle, pick jobs up in well under the interval, and shut
// down without waiting for it. If asynq's dequeue stops being recognised, the worker
// polls every millisecond and the first check fails; if announcements stop arriving,
// the jobs wait a minute and the second does.
func TestWakeUp(t *testing.T) {
	e := newEnv(t)
	rt := &redistest.RoundTrips{}
	e.workerHook = rt
	w := e.newWorker(t, &echo{}, WorkerOptions{PollInterval: time.Minute, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			w.Shutdown()
		}
	})

	time.Sleep(500 * time.Millisecond) // the start's own round trips happen
	before := rt.Count()
	time.Sleep(time.Second)
	if n := rt.Count() - before; n > 10 {
		t.Fatalf("an idle worker made %d round trips in a second; it polls instead of waiting", n)
	}

	for i := range 3 {
		rec := e.submit(t, false, `1`)
		e.waitStatus(t, rec.ID, job.StatusSucceeded, 10*time.Second)
		if i < 2 {
			time.Sleep(100 * time.Millisecond) // idle again
		}
	}

	done := make(chan struct{})
	go func() { w.Shutdown(); close(done) }()
	select {
	case <-done:
		stopped = true
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown waited for the poll interval")
	}
}

// TestWakeUpMissedAnnouncement checks the fallback: a job queued without an
// announcement (as a retry comes back, or when the announcement is lost) still starts
// within the poll interval.
func TestWakeUpMissedAnnouncement(t *testing.T) {
	e := newEnv(t)
	e.startWorker(t, &echo{}, WorkerOptions{PollInterval: 200 * time.Millisecond})
	time.Sleep(300 * time.Millisecond) // idle, waiting
	rec := job.Record{ID: "silent", Status: job.StatusCreated, Model: "echo", Version: "v1", Input: json.RawMessage(`1`), CreatedAt: time.Now()}
	if err := e.store.Create(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	// Enqueued straight through asynq: no announcement.
	task, opts := e.tasks.newTask(rec.ID, 0, nil)
	if _, err := e.runner.client.Enqueue(task, opts...); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, rec.ID, job.StatusSucceeded, 10*time.Second)
}

// TestWakeUpBurst: only a task that finds the queue empty is announced, and that is
// enough. With no worker, five submissions make one announcement; then two idle
// workers that poll once a minute take a burst of 40 jobs, 39 of them unannounced,
// without waiting for a poll, since a worker dequeues again at once after every task
// it takes.
func TestWakeUpBurst(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ps := e.rc.Subscribe(ctx, wakeChannel(e.tasks.Queue, false))
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		t.Fatal(err)
	}
	for range 5 {
		e.submit(t, false, `1`)
	}
	if _, err := ps.ReceiveMessage(ctx); err != nil {
		t.Fatal(err)
	}
	if m, err := ps.ReceiveTimeout(ctx, 300*time.Millisecond); err == nil {
		t.Fatalf("a second announcement for a queue that was not empty: %+v", m)
	}

	opts := WorkerOptions{PollInterval: time.Minute, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute}
	for range 2 {
		e.startWorker(t, &echo{}, opts)
	}
	time.Sleep(300 * time.Millisecond) // the five are taken, and both workers hold
	ids := make([]string, 40)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() { ids[i] = e.submit(t, false, `1`).ID })
	}
	wg.Wait()
	for _, id := range ids {
		e.waitStatus(t, id, job.StatusSucceeded, 10*time.Second)
	}
}
