package queue

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// TestWakeUp checks that an idle worker waits for announcements rather than polling,
// and starts an announced job at once: with a poll interval of a minute, its empty
// dequeue must be held (not answered at once and asked again), it must pick jobs up
// in well under the interval, and shut down without waiting for it. If asynq's
// dequeue stops being recognised, no dequeue is held before the guard falls back and
// the first check fails; if announcements stop arriving, the jobs wait a minute and
// the second does.
func TestWakeUp(t *testing.T) {
	e := newEnv(t)
	var fellBack atomic.Int32
	w := e.newWorker(t, &echo{}, WorkerOptions{PollInterval: time.Minute, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute,
		FellBack: func() { fellBack.Add(1) }})
	h := watchHolds(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			w.Shutdown()
		}
	})

	// The guard tells a fallback before the hold that follows it, so a hold with no
	// fallback told is one of a recognised dequeue.
	n := h.await(t, 0, 10*time.Second)
	if f := fellBack.Load(); f != 0 {
		t.Fatalf("the idle worker's dequeue was not recognised: the guard fell back (%d)", f)
	}

	for range 3 {
		rec := e.submit(t, false, `1`)
		e.waitStatus(t, rec.ID, job.StatusSucceeded, 10*time.Second)
		n = h.await(t, n, 10*time.Second) // idle again: the next job is announced to a held dequeue
	}
	if f := fellBack.Load(); f != 0 {
		t.Fatalf("the guard fell back %d times", f)
	}
	// One hold to start with and one or two per job (an announcement that came while
	// no dequeue was held ends the next hold at once): a worker whose holds end without
	// an announcement makes hundreds in that time.
	if n = h.count(); n > 10 {
		t.Fatalf("%d holds for three jobs: the idle worker's holds do not wait", n)
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
	_, h := e.startIdle(t, &echo{}, WorkerOptions{PollInterval: 200 * time.Millisecond})
	h.await(t, 0, 10*time.Second) // idle, waiting
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
	// A marker published after the five: a subscription receives in order, so any
	// second announcement would come before it.
	if err := e.rc.Publish(ctx, wakeChannel(e.tasks.Queue, false), "marker").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.ReceiveMessage(ctx); err != nil {
		t.Fatal(err)
	}
	if m, err := ps.ReceiveMessage(ctx); err != nil || m.Payload != "marker" {
		t.Fatalf("a second announcement for a queue that was not empty: %+v %v", m, err)
	}

	opts := WorkerOptions{PollInterval: time.Minute, RetryCheckInterval: time.Minute, RecoverInterval: time.Minute}
	// A hold means the queue was found empty: the five are taken, and both workers hold.
	for range 2 {
		_, h := e.startIdle(t, &echo{}, opts)
		h.await(t, 0, 10*time.Second)
	}
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

// TestHoldAsksEveryQueue: a waker woken by an announcement lets every queue be asked
// before it holds again, whatever order asynq asks them in each round and wherever in
// a round its hold fell; the announced task is in one of them, and a hold before it is
// found waits a poll interval. asynq is played by a loop of rounds over the queues in
// a random order, which ends at the first task found, as its dequeue does. Both for a
// waker that recognises the dequeue and for one whose guard has fallen back.
func TestHoldAsksEveryQueue(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fallen bool
	}{{"recognised", false}, {"fallen back", true}} {
		t.Run(tc.name, func(t *testing.T) { testHoldAsksEveryQueue(t, tc.fallen) })
	}
}

func testHoldAsksEveryQueue(t *testing.T, fallen bool) {
	queues := []string{"inferd-high", "inferd", "inferd-low"}
	w := newWaker(queues, time.Minute, nil)
	if fallen {
		w.queues = map[string]queueKeys{"asynq:{a-layout-of-another-version}:pending": {}}
		w.guard.fallen.Store(true)
	}

	var mu sync.Mutex
	task := "" // the queue an announced task waits in, until a dequeue takes it
	holding := make(chan string, 1)
	w.onHold = func() {
		mu.Lock()
		defer mu.Unlock()
		select {
		case holding <- task:
		default: // after the test, when nobody reads
		}
	}
	dequeue := w.ProcessHook(func(_ context.Context, cmd redis.Cmder) error {
		mu.Lock()
		defer mu.Unlock()
		if cmd.Args()[3] == "asynq:{"+task+"}:pending" {
			task = ""
			return nil
		}
		cmd.SetErr(redis.Nil)
		return redis.Nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			for _, i := range rand.Perm(len(queues)) {
				q := "asynq:{" + queues[i] + "}:"
				cmd := redis.NewCmd(ctx, "evalsha", "sha", 4, q+"pending", q+"paused", q+"active", q+"lease", 0, q+"t:")
				if dequeue(ctx, cmd) == nil {
					break
				}
			}
		}
	}()
	defer func() { cancel(); w.close(); <-done }()

	for round := range 2000 {
		select {
		case waiting := <-holding:
			if waiting != "" {
				t.Fatalf("hold %d began with the task announced before it still waiting in %s", round, waiting)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no hold %d in 10s: the waker does not hold empty dequeues", round)
		}
		mu.Lock()
		task = queues[rand.IntN(len(queues))]
		mu.Unlock()
		w.announced["asynq:{"+task+"}:pending"].Add(1) // as listen hears it
		w.wake <- struct{}{}
	}
}
