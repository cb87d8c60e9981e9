package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Op is one closed-loop step of a case: one request (or one job, submit to finished)
// on its connection. It returns the items the model computed.
type Op func(ctx context.Context, c *Conn) (items int, err error)

// Step is one closed-loop step on a connection of a Session's own.
type Step func(ctx context.Context) (items int, err error)

// Session opens one connection of a case that does not speak HTTP/1.1 through Conn (a
// gRPC case: one GRPCConn), for one goroutine; end closes it.
type Session func(ctx context.Context) (step Step, end func(), err error)

// Load drives op closed-loop on conns connections until stop says so. samples keeps
// every latency when set; a memory run of a million requests passes false.
type Load struct {
	Conns int
	// Op is the step of an HTTP case, on a Conn per connection; Session, when set,
	// opens each connection instead and Op is not used.
	Op      Op
	Session Session
	Samples bool
	// For, when set, is how long connections start new ops; each then finishes the op
	// it has in flight, which counts, and Elapsed runs until the last one has. Cutting
	// ops off at the deadline instead would count none of a case whose latency is
	// longer than the run (64 connections of 1 MB bodies), and leave the server busy
	// with abandoned requests when the next measurement starts.
	For time.Duration
	// Done counts finished ops while the load runs, for the progress bar.
	Done atomic.Int64
}

// Run drives until For has passed (and the ops in flight have finished), or stop(n)
// returns true after the n-th op anywhere; an end of ctx cuts the ops off.
func (l *Load) Run(ctx context.Context, stop func(n int64) bool) Result {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var over atomic.Bool
	if l.For > 0 {
		t := time.AfterFunc(l.For, func() { over.Store(true) })
		defer t.Stop()
	}
	type part struct {
		lat         []time.Duration
		reqs, items int
		errs        int
		firstErr    error
	}
	parts := make([]part, l.Conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range l.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &parts[i]
			step, end, err := l.open(ctx)
			if err != nil {
				p.errs, p.firstErr = 1, err
				return
			}
			defer end()
			if l.Samples {
				p.lat = make([]time.Duration, 0, 1<<14)
			}
			for ctx.Err() == nil && !over.Load() {
				t0 := time.Now()
				items, err := step(ctx)
				d := time.Since(t0)
				if ctx.Err() != nil {
					return // cut off by the end of the run: neither a sample nor an error
				}
				if err != nil {
					if p.errs++; p.firstErr == nil {
						p.firstErr = err
					}
				} else {
					p.reqs++
					p.items += items
					if l.Samples {
						p.lat = append(p.lat, d)
					}
				}
				if stop(l.Done.Add(1)) {
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	res := Result{Conns: l.Conns, Elapsed: time.Since(start)}
	var all []time.Duration
	for _, p := range parts {
		res.Requests += p.reqs
		res.Items += p.items
		res.Errors += p.errs
		if p.firstErr != nil && res.FirstError == "" {
			res.FirstError = p.firstErr.Error()
		}
		all = append(all, p.lat...)
	}
	res.P50, res.P90, res.P99 = Percentile(all, 50), Percentile(all, 90), Percentile(all, 99)
	return res
}

// open opens one connection: the Session's, or a Conn for Op.
func (l *Load) open(ctx context.Context) (Step, func(), error) {
	if l.Session != nil {
		return l.Session(ctx)
	}
	c := NewConn(ctx)
	op := l.Op
	return func(ctx context.Context) (int, error) { return op(ctx, c) }, c.Close, nil
}
