package queue

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/redistest"
)

// BenchmarkIdlePickup measures how long an idle worker takes to start a job: from the
// moment Submit returns to the moment the model is called. Between jobs it waits a random 0-150 ms, so each job arrives at a
// random point of the worker's poll cycle. ns/op is the mean; the p50, p99 and max
// metrics are in milliseconds.
//
//	go test -run '^$' -bench IdlePickup -benchtime 200x ./internal/job/queue
func BenchmarkIdlePickup(b *testing.B) {
	e := newEnv(b)
	started := make(chan time.Time, 1)
	pred := &echo{hold: func(context.Context) error { started <- time.Now(); return nil }}
	e.startWorker(b, pred, WorkerOptions{Concurrency: 1})
	ctx := context.Background()
	// Warm the connections up.
	if _, err := e.svc.Submit(ctx, "echo", "v1", false, json.RawMessage(`0`)); err != nil {
		b.Fatal(err)
	}
	<-started

	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		time.Sleep(rand.N(150 * time.Millisecond)) // the worker idles on Redis's blocking dequeue, as between real submissions
		b.StartTimer()
		rec, err := e.svc.Submit(ctx, "echo", "v1", false, json.RawMessage(`1`))
		if err != nil {
			b.Fatal(err)
		}
		submitted := time.Now()
		at := <-started
		lat = append(lat, at.Sub(submitted))
		b.StopTimer()
		e.waitStatus(b, rec.ID, job.StatusSucceeded, 5*time.Second)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(float64(sum)/float64(len(lat)), "ns/op")
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}

// finishCounter is a job.Observer that signals when n jobs have finished.
type finishCounter struct {
	left atomic.Int64
	done chan struct{}
}

func (c *finishCounter) Started(job.Record) {}
func (c *finishCounter) Finished(job.Record) {
	if c.left.Add(-1) == 0 {
		close(c.done)
	}
}

// BenchmarkEndToEnd submits b.N single jobs through the API's job.Service from 16
// goroutines and waits until two workers (8 jobs at once each, separate Redis clients
// like separate processes) have finished them all. jobs/s is the throughput of the
// whole path: record, enqueue, pick up, run the echo model, record.
//
//	go test -run '^$' -bench EndToEnd -benchtime 5000x ./internal/job/queue
func BenchmarkEndToEnd(b *testing.B) {
	e := newEnv(b)
	c := &finishCounter{done: make(chan struct{})}
	c.left.Store(int64(b.N))
	for range 2 {
		w := e.newWorker(b, &echo{}, WorkerOptions{Concurrency: 8})
		w.exec.Observer = c
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(w.Shutdown)
	}
	ctx := context.Background()
	const submitters = 16
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range submitters {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if _, err := e.svc.Submit(ctx, "echo", "v1", false, json.RawMessage(`{"x":1}`)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-c.done:
	case <-time.After(time.Minute + time.Duration(b.N)*time.Millisecond):
		b.Fatalf("%d of %d jobs unfinished", c.left.Load(), b.N)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
}

// BenchmarkClosedLoop is the queue path as a client sees it, without HTTP: 16 clients
// each submit a job and poll its record (backing off from 0.5 ms to 5 ms, as the HTTP
// harness does) until it has succeeded, then submit the next; two workers run them.
// jobs/s is the throughput, p50-ms the latency of one job, submit to seen finished;
// pick-ms, run-ms and seen-ms split its mean (created to started, started to finished,
// finished to seen), and the trips/job count Redis round trips, polls included.
//
//	go test -run '^$' -bench ClosedLoop -benchtime 3000x ./internal/job/queue
func BenchmarkClosedLoop(b *testing.B) {
	e := newEnv(b)
	api, wrk := &redistest.RoundTrips{}, &redistest.RoundTrips{}
	e.rc.AddHook(api)
	e.workerHook = wrk
	for range 2 {
		e.startWorker(b, &echo{}, WorkerOptions{Concurrency: WorkerOptions{}.withDefaults().Concurrency})
	}
	ctx := context.Background()
	const clients = 16
	var next atomic.Int64
	var pick, run, seen atomic.Int64
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				rec, err := e.svc.Submit(ctx, "echo", "v1", false, json.RawMessage(`{"x":1}`))
				if err != nil {
					b.Error(err)
					return
				}
				for wait := 500 * time.Microsecond; rec.Status != job.StatusSucceeded; wait = min(2*wait, 5*time.Millisecond) {
					time.Sleep(wait) // the job's run through Redis and a worker: polled as a client polls, part of what is measured
					if rec, err = e.svc.Get(ctx, rec.ID); err != nil {
						b.Error(err)
						return
					}
				}
				lat[c] = append(lat[c], time.Since(t0))
				pick.Add(int64(rec.StartedAt.Sub(rec.CreatedAt)))
				run.Add(int64(rec.FinishedAt.Sub(rec.StartedAt)))
				seen.Add(int64(time.Since(rec.FinishedAt)))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(float64(all[len(all)/2])/float64(time.Millisecond), "p50-ms")
	b.ReportMetric(float64(api.Count())/float64(b.N), "api-trips/job")
	b.ReportMetric(float64(pick.Load())/float64(b.N)/1e6, "pick-ms")
	b.ReportMetric(float64(run.Load())/float64(b.N)/1e6, "run-ms")
	b.ReportMetric(float64(seen.Load())/float64(b.N)/1e6, "seen-ms")
	b.ReportMetric(float64(wrk.Count())/float64(b.N), "worker-trips/job")
}
