package batch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// ErrClosed is returned to a call made after Close.
var ErrClosed = errors.New("batcher closed")

// Func is the model call the batcher shares: results in the order of items, one each.
type Func func(ctx context.Context, items []any) ([]any, error)

// Options configure a Batcher; the zero value of each field is a documented default.
type Options struct {
	// MaxSize caps the items of one call; 0 means no cap. A request with more items is
	// split across calls.
	MaxSize int
	// MaxQueueDelay is how long the batcher may hold a request that arrived while a
	// call was running, waiting for more to fill the next call (up to MaxSize items, or
	// as many as the last call to end had), counted from its arrival. 0 dispatches
	// whatever is queued at once.
	MaxQueueDelay time.Duration
	// MaxCalls is how many calls may run at once (Triton's instance count); 0 means 1.
	// A second call lets a batch gather and run while another is running, so a
	// runtime that uses one core per call can keep more than one busy.
	MaxCalls int
	// Called, when set, is told the items of every call and how long it took, after it.
	Called func(n int, d time.Duration)
	// Queued, when set, is told how long each request waited before its first items
	// went to a call.
	Queued func(d time.Duration)
	// Call, when set, is told of every call as it starts: the contexts of the requests
	// whose items it runs, in queue order, and its items; the function it returns, when
	// not nil, is told the call's error as it ends. Tracing records the shared call in
	// each caller's trace through it.
	Call func(callers []context.Context, items int) (end func(error))
}

// Batcher runs Func for several callers at once. It is safe for concurrent use.
type Batcher struct {
	fn   Func
	opts Options

	mu      sync.Mutex
	queue   []*request
	items   int // items queued and not yet dispatched
	running int // calls in flight
	// lastDone is the items of the call that ended last: as many callers as may be
	// back soon with their next request, which is what gathering waits for.
	lastDone int
	closed   bool
	wake     chan struct{} // capacity 1: something was queued, a slot freed, or Close was called
	done     chan struct{} // closed when the loop has stopped
	calls    sync.WaitGroup
}

// request is one caller's items on their way through calls.
type request struct {
	ctx     context.Context // the caller's, for Options.Call; never cancels a call
	items   []any
	out     []any
	arrived time.Time
	busy    bool // a call was running when it arrived
	next    int  // items dispatched so far
	left    bool // the caller's context ended: dispatch nothing more of it
	pending int  // segments dispatched and not yet finished
	err     error
	done    chan struct{}
}

// segment is items[lo:hi] of one request inside a call.
type segment struct {
	req    *request
	lo, hi int
}

// New starts a batcher around fn; Close stops it.
func New(fn Func, opts Options) *Batcher {
	b := &Batcher{fn: fn, opts: opts, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go b.loop()
	return b
}

// Do runs items through fn, possibly in one call with other callers' items, and returns
// exactly their results in their order. When ctx ends before the results are ready it
// returns at once, and items not yet dispatched are never run.
//
// A request that finds the model idle (no call running, nothing queued) and fits in one
// call runs that call itself, on its caller's goroutine, as if there were no batcher:
// handing it to the loop and back costs two goroutine switches, which on a busy machine
// cost more than a small model call, and it would wait for no one anyway. Its caller
// then returns when the call ends, whatever ctx does, as without batching; requests
// that arrive meanwhile queue for the loop as usual.
func (b *Batcher) Do(ctx context.Context, items []any) ([]any, error) {
	if len(items) == 0 {
		return b.fn(ctx, items)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // its caller has gone, or its deadline passed: no model time
	}
	req := &request{ctx: ctx, items: items, out: make([]any, len(items)), arrived: time.Now(), done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	req.busy = b.running > 0
	lone := b.running == 0 && b.items == 0 && (b.opts.MaxSize <= 0 || len(items) <= b.opts.MaxSize)
	b.queue = append(b.queue, req)
	b.items += len(items)
	if lone {
		segs := b.takeLocked()
		b.running++
		b.calls.Add(1)
		b.mu.Unlock()
		defer b.calls.Done()
		b.call(segs)
		return req.out, req.err
	}
	b.mu.Unlock()
	b.signal()

	select {
	case <-req.done:
		return req.out, req.err
	case <-ctx.Done():
		b.mu.Lock()
		b.abandonLocked(req)
		b.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Queued is how many items wait for a call now.
func (b *Batcher) Queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.items
}

// Close runs what is queued, waits for the last call to finish and stops the batcher.
func (b *Batcher) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
	<-b.done
}

func (b *Batcher) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// loop dispatches the calls of queued requests, at most MaxCalls at a time counting the
// calls lone requests run themselves (see Do). It dispatches at once when the model was
// idle, so a lone request never waits for company; requests that queue up while a call
// runs form the next one, which may wait up to MaxQueueDelay for more while it is not
// full.
func (b *Batcher) loop() {
	defer close(b.done)
	defer b.calls.Wait()
	maxCalls := max(b.opts.MaxCalls, 1)
	b.mu.Lock()
	for {
		for (b.items == 0 && !b.closed) || (b.items > 0 && b.running >= maxCalls) {
			if b.items == 0 {
				b.queue = b.queue[:0] // only requests that left remain
			}
			b.mu.Unlock()
			<-b.wake
			// Callers a finished call just woke may be runnable on this P behind us;
			// one yield lets them queue so they share this call, without waiting
			// for anyone who is not already on the way.
			runtime.Gosched()
			b.mu.Lock()
		}
		if b.items == 0 && b.closed {
			b.mu.Unlock()
			return
		}
		b.gatherLocked()
		segs := b.takeLocked()
		if len(segs) == 0 {
			continue // every request gathered left
		}
		b.running++
		b.calls.Add(1)
		b.mu.Unlock()
		go func() {
			defer b.calls.Done()
			b.call(segs)
		}()
		b.mu.Lock()
	}
}

// gatherLocked waits, with b.mu held on entry and exit, until the next call is full or
// holds as many items as the last call to end, the oldest queued request has waited
// MaxQueueDelay, or the batcher is closing. It does not
// wait at all when the model is idle and the oldest request found it idle: a lone
// request does not wait for company.
func (b *Batcher) gatherLocked() {
	if b.opts.MaxQueueDelay <= 0 {
		return
	}
	var oldest *request
	for _, r := range b.queue {
		if !r.left && r.next < len(r.items) {
			oldest = r
			break
		}
	}
	if oldest == nil || (!oldest.busy && b.running == 0) {
		return
	}
	deadline := oldest.arrived.Add(b.opts.MaxQueueDelay)
	// Enough is a full call, or as many items as the last call to end had: its callers
	// are the ones that may be coming back, and waiting for more than that, when
	// clients wait for their answer before asking again, waits for requests that
	// cannot arrive until the calls still running end.
	enough := b.opts.MaxSize
	if b.lastDone > 0 && (enough <= 0 || b.lastDone < enough) {
		enough = b.lastDone
	}
	for !b.closed && b.items > 0 && (enough <= 0 || b.items < enough) {
		wait := time.Until(deadline)
		if wait <= 0 {
			return
		}
		b.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-b.wake:
		case <-t.C:
		}
		t.Stop()
		b.mu.Lock()
	}
}

// takeLocked removes up to MaxSize items from the front of the queue, splitting a
// request that does not fit.
func (b *Batcher) takeLocked() []segment {
	var segs []segment
	n, i := 0, 0
	for ; i < len(b.queue); i++ {
		r := b.queue[i]
		if !r.left && r.pending == 0 && r.ctx.Err() != nil {
			// Its caller has gone or its deadline passed, and Do has not yet taken it
			// out: its items are dropped here, before the model runs them. (One with
			// a part in a call already is left to Do, which hands back no result.)
			b.abandonLocked(r)
		}
		if r.left {
			continue
		}
		room := len(r.items) - r.next
		if b.opts.MaxSize > 0 {
			room = min(room, b.opts.MaxSize-n)
		}
		if room == 0 {
			break
		}
		if r.next == 0 && b.opts.Queued != nil {
			b.opts.Queued(time.Since(r.arrived))
		}
		segs = append(segs, segment{req: r, lo: r.next, hi: r.next + room})
		r.next += room
		r.pending++
		n += room
		b.items -= room
		if r.next < len(r.items) {
			break // full; the rest of r goes in a later call
		}
	}
	b.queue = append(b.queue[:0], b.queue[i:]...)
	if len(b.queue) > 0 && b.queue[0].next == len(b.queue[0].items) {
		b.queue = b.queue[1:]
	}
	return segs
}

// call runs one model call over segs and hands each request its results.
func (b *Batcher) call(segs []segment) {
	var items []any
	for _, s := range segs {
		items = append(items, s.req.items[s.lo:s.hi]...)
	}
	var end func(error)
	if b.opts.Call != nil {
		callers := make([]context.Context, len(segs))
		for i, s := range segs {
			callers[i] = s.req.ctx
		}
		end = b.opts.Call(callers, len(items))
	}
	start := time.Now()
	out, err := b.run(items)
	if b.opts.Called != nil {
		b.opts.Called(len(items), time.Since(start))
	}
	if err == nil && len(out) != len(items) {
		err = fmt.Errorf("the model returned %d results for %d items", len(out), len(items))
	}
	if end != nil {
		end(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// Under the lock that hands out the results, so a caller that sends its next
	// request as soon as it has them finds the model idle.
	b.running--
	b.lastDone = len(items)
	if b.items > 0 {
		b.signal() // the loop may be waiting for this slot
	}
	off := 0
	for _, s := range segs {
		r := s.req
		if err != nil {
			r.err = err
		} else {
			copy(r.out[s.lo:s.hi], out[off:off+s.hi-s.lo])
		}
		off += s.hi - s.lo
		r.pending--
		if r.pending == 0 && (r.next == len(r.items) || r.err != nil) {
			if r.err != nil { // a failed part: the rest need not run
				b.abandonLocked(r)
			}
			close(r.done)
		}
	}
}

// abandonLocked takes a request's undispatched items out of the count, once: its
// caller left, or a part of it failed. Both can happen to one request (a caller whose
// context ends as its failed call completes), and the count must not drop twice.
func (b *Batcher) abandonLocked(r *request) {
	if r.left {
		return
	}
	b.items -= len(r.items) - r.next
	r.left = true
}

// run calls fn, turning a panic into a *pipeline.PanicError for the requests of this
// call.
func (b *Batcher) run(items []any) (out []any, err error) {
	defer pipeline.Recover(&err)
	// The call serves several callers, so no one caller's context may cancel it.
	return b.fn(context.Background(), items)
}
