package queuetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// BenchmarkQueueMode measures queue mode end to end through the real binaries over real
// sockets: one API server and two workers (WORKER_CONCURRENCY=8 each) on one Redis.
// The binaries are proctest's -race builds unless INFERD_BIN_DIR names others; the
// race detector slows them several times, so for figures to quote, build with `make
// build` and run
//
//	INFERD_BIN_DIR=$PWD/bin go test -run '^$' -bench 'QueueMode/throughput' -benchtime 3000x ./internal/app/queuetest
//	INFERD_BIN_DIR=$PWD/bin go test -run '^$' -bench 'QueueMode/idle-pickup' -benchtime 300x ./internal/app/queuetest
func BenchmarkQueueMode(b *testing.B) {
	c := newCluster(b)
	s := c.startServer()
	c.startWorker("WORKER_CONCURRENCY=8")
	c.startWorker("WORKER_CONCURRENCY=8")
	// Warm up connections and pipelines.
	s.waitStatus(b, s.submit(b, single("echo", "v1", `0`)), "succeeded", 10*time.Second)

	b.Run("throughput", func(b *testing.B) { benchThroughput(b, s) })
	b.Run("idle-pickup", func(b *testing.B) { benchIdlePickup(b, s) })
}

// benchThroughput submits b.N single echo jobs over HTTP from 8 goroutines while 8
// others poll each job until it has succeeded. jobs/s is b.N over the time from the
// first submit to the last success seen.
func benchThroughput(b *testing.B, s *server) {
	const submitters, pollers = 8, 8
	type item struct {
		id, data string
		polled   time.Time
	}
	queue := make(chan item, b.N) // jobs not yet seen succeeded; never blocks a sender
	allDone := make(chan struct{})
	var next, done atomic.Int64
	finish := func() {
		if done.Add(1) == int64(b.N) {
			close(allDone)
		}
	}
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range submitters {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				data := fmt.Sprintf(`{"i":%d,"n":12345678901234567890}`, i)
				id, err := s.trySubmit(single("echo", "v1", data))
				if err != nil {
					b.Error(err)
					finish()
					continue
				}
				queue <- item{id: id, data: data}
			}
		})
	}
	for range pollers {
		wg.Go(func() {
			for {
				var it item
				select {
				case <-allDone:
					return
				case it = <-queue:
				}
				// Poll one job at most every 5 ms; others are polled meanwhile.
				if d := 5*time.Millisecond - time.Since(it.polled); d > 0 {
					time.Sleep(d) // the child workers run the job meanwhile: the client's poll cadence, part of what is measured
				}
				rec, err := s.tryPoll(it.id)
				switch {
				case err != nil:
					b.Error(err)
					finish()
				case rec.Status == "succeeded":
					if !testkit.SameJSON(rec.Result, []byte(it.data)) {
						b.Errorf("job %s: result %s, want %s", it.id, rec.Result, it.data)
					}
					finish()
				case rec.final():
					b.Errorf("job %s ended %s: %+v", it.id, rec.Status, rec)
					finish()
				default:
					it.polled = time.Now()
					queue <- it
				}
			}
		})
	}
	select {
	case <-allDone:
	case <-time.After(2*time.Minute + time.Duration(b.N)*10*time.Millisecond):
		b.Fatalf("%d of %d jobs unfinished", int64(b.N)-done.Load(), b.N)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	wg.Wait()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
}

// benchIdlePickup submits b.N jobs one at a time to idle workers, each after a random
// 0-150 ms pause so that it arrives at a random point of their poll cycle. pickup is
// the record's started_at minus its created_at (stamped by the worker and the server,
// on this one machine's clock): how long a job waits for an idle worker. ns/op and
// e2e are from before the submit to the poll (every 2 ms) that saw it succeeded.
func benchIdlePickup(b *testing.B, s *server) {
	pickup := make([]time.Duration, 0, b.N)
	e2e := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		time.Sleep(rand.N(150 * time.Millisecond)) // to a random point of the idle child workers' poll cycle on Redis
		b.StartTimer()
		t0 := time.Now()
		id := s.submit(b, single("echo", "v1", fmt.Sprint(i)))
		var rec jobRecord
		for rec = s.poll(b, id); rec.Status != "succeeded"; rec = s.poll(b, id) {
			if rec.final() || time.Since(t0) > 10*time.Second {
				b.Fatalf("job %s: %+v", id, rec)
			}
			time.Sleep(2 * time.Millisecond) // the child worker runs the job meanwhile: e2e ends at the poll, every 2 ms, that sees it succeeded
		}
		e2e = append(e2e, time.Since(t0))
		pickup = append(pickup, rec.StartedAt.Sub(rec.CreatedAt))
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	q := func(ds []time.Duration, p int) time.Duration { return ds[(len(ds)-1)*p/100] }
	slices.Sort(pickup)
	slices.Sort(e2e)
	b.ReportMetric(ms(q(pickup, 50)), "pickup-p50-ms")
	b.ReportMetric(ms(q(pickup, 99)), "pickup-p99-ms")
	b.ReportMetric(ms(pickup[len(pickup)-1]), "pickup-max-ms")
	b.ReportMetric(ms(q(e2e, 50)), "e2e-p50-ms")
}
