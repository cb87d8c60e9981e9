package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// recorder is a model that records the items of every call and answers each item with
// a copy of it, so a caller can see that it got its own results back. While gate is
// open (non-nil and not closed) each call waits for it, so a test can queue requests
// behind a call in flight.
type recorder struct {
	mu      sync.Mutex
	calls   [][]any
	running int // calls in flight now
	most    int // the most calls that were ever in flight at once
	gate    chan struct{}
	entered chan struct{}
	err     error
	panics  bool
}

func newRecorder(gated bool) *recorder {
	r := &recorder{entered: make(chan struct{}, 64)}
	if gated {
		r.gate = make(chan struct{})
	}
	return r
}

func (r *recorder) call(_ context.Context, items []any) ([]any, error) {
	r.mu.Lock()
	r.calls = append(r.calls, slices.Clone(items))
	r.running++
	r.most = max(r.most, r.running)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running--
		r.mu.Unlock()
	}()
	r.entered <- struct{}{}
	if r.gate != nil {
		<-r.gate
	}
	if r.panics {
		panic("boom")
	}
	if r.err != nil {
		return nil, r.err
	}
	return slices.Clone(items), nil
}

func (r *recorder) sizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for _, c := range r.calls {
		out = append(out, len(c))
	}
	return out
}

func (r *recorder) mostAtOnce() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.most
}

func (r *recorder) seen(item any) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		if slices.Contains(c, item) {
			return true
		}
	}
	return false
}

// waitQueued waits, in a synctest bubble, until every other goroutine is blocked,
// and checks that n items are queued by then.
func waitQueued(t *testing.T, b *Batcher, n int) {
	t.Helper()
	synctest.Wait()
	if got := b.Queued(); got != n {
		t.Fatalf("%d items queued once everything blocked, want %d", got, n)
	}
}

func items(caller, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d-%d", caller, i)
	}
	return out
}

// result is what one Do returned.
type result struct {
	out []any
	err error
}

func do(ctx context.Context, b *Batcher, in []any) chan result {
	ch := make(chan result, 1)
	go func() {
		out, err := b.Do(ctx, in)
		ch <- result{out, err}
	}()
	return ch
}

// TestOrderAndMaxSize: many concurrent callers, each with its own number of items, get
// exactly their own results in their own order, and no call exceeds MaxSize, while
// requests that queued behind a busy model share calls.
func TestOrderAndMaxSize(t *testing.T) {
	tests := []struct {
		name    string
		maxSize int
		callers int
		calls   int // MaxCalls
	}{
		{"cap 4", 4, 40, 0},
		{"cap 1", 1, 10, 0},
		{"cap 16", 16, 64, 0},
		{"no cap", 0, 32, 0},
		{"cap 4, two calls at once", 4, 40, 2},
		{"cap 1, three calls at once", 1, 10, 3},
		{"no cap, two calls at once", 0, 32, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := newRecorder(false)
				b := New(rec.call, Options{MaxSize: tt.maxSize, MaxQueueDelay: time.Millisecond, MaxCalls: tt.calls})
				defer b.Close()
				var wg sync.WaitGroup
				for c := range tt.callers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						in := items(c, 1+c%5)
						out, err := b.Do(context.Background(), in)
						if err != nil || !slices.Equal(out, in) {
							t.Errorf("caller %d: got %v, %v; want %v", c, out, err, in)
						}
					}()
				}
				wg.Wait()
				total := 0
				for _, n := range rec.sizes() {
					total += n
					if tt.maxSize > 0 && n > tt.maxSize {
						t.Errorf("a call of %d items; the cap is %d", n, tt.maxSize)
					}
				}
				if want := 3 * tt.callers; total < want-tt.callers || total > want+tt.callers {
					t.Errorf("%d items ran; the callers sent about %d", total, want)
				}
				if most := rec.mostAtOnce(); most > max(tt.calls, 1) {
					t.Errorf("%d calls ran at once; MaxCalls is %d", most, tt.calls)
				}
			})
		})
	}
}

// TestCoalesces: requests that arrive while a call is in flight go to the model as one
// call when it is free, split at MaxSize, and each gets its own results. The calls are
// full, so none waits for MaxQueueDelay (10 s): the bubble's clock does not move.
func TestCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rec := newRecorder(true)
		b := New(rec.call, Options{MaxSize: 4, MaxQueueDelay: 10 * time.Second})
		defer b.Close()
		first := do(context.Background(), b, items(0, 1))
		<-rec.entered
		var waiting []chan result
		for c := 1; c <= 3; c++ {
			waiting = append(waiting, do(context.Background(), b, items(c, 2)))
			waitQueued(t, b, 2*c)
		}
		waiting = append(waiting, do(context.Background(), b, items(4, 10))) // split 2+4+4
		waitQueued(t, b, 16)
		close(rec.gate)
		if r := <-first; r.err != nil {
			t.Fatal(r.err)
		}
		for i, ch := range waiting {
			r := <-ch
			want := items(i+1, 2)
			if i == 3 {
				want = items(4, 10)
			}
			if r.err != nil || !slices.Equal(r.out, want) {
				t.Errorf("caller %d: %v, %v; want %v", i+1, r.out, r.err, want)
			}
		}
		if got, want := rec.sizes(), []int{1, 4, 4, 4, 4}; !slices.Equal(got, want) {
			t.Errorf("call sizes %v, want %v", got, want)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("full calls waited %v for company", d)
		}
	})
}

// TestLoneRequestDoesNotWait: a request that finds the model idle runs at once, even
// with a MaxQueueDelay of 10 s: the context's 5 s would end first if it waited.
func TestLoneRequestDoesNotWait(t *testing.T) {
	tests := []struct {
		name    string
		maxSize int
		before  int // requests run to completion first, so the batcher has been busy
		calls   int // MaxCalls
	}{
		{"first request", 8, 0, 0},
		{"after traffic", 8, 3, 0},
		{"no cap", 0, 1, 0},
		{"first request, two calls at once", 8, 0, 2},
		{"after traffic, two calls at once", 8, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := newRecorder(false)
				b := New(rec.call, Options{MaxSize: tt.maxSize, MaxQueueDelay: 10 * time.Second, MaxCalls: tt.calls})
				defer b.Close()
				for i := 0; i <= tt.before; i++ {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					out, err := b.Do(ctx, items(i, 1))
					cancel()
					if err != nil || !slices.Equal(out, items(i, 1)) {
						t.Fatalf("request %d: %v, %v: it waited for company", i, out, err)
					}
				}
			})
		})
	}
}

// TestLoneRequestRunsItsOwnCall: a request that finds the model idle runs the call
// inside Do, on its caller's goroutine, with no hand-off to the batcher's loop; a caller
// whose context ends meanwhile gets its results when the call ends, as without
// batching. A request while that call runs, or one too large for one call, goes
// through the loop.
func TestLoneRequestRunsItsOwnCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var inDo []bool // per call: whether Do is on its stack
		gate := make(chan struct{})
		b := New(func(_ context.Context, in []any) ([]any, error) {
			stack := make([]byte, 64<<10)
			stack = stack[:runtime.Stack(stack, false)]
			mu.Lock()
			inDo = append(inDo, bytes.Contains(stack, []byte("batch.(*Batcher).Do(")))
			first := len(inDo) == 1
			mu.Unlock()
			if first {
				<-gate
			}
			return in, nil
		}, Options{MaxSize: 4})
		defer b.Close()
		ctx, cancel := context.WithCancel(context.Background())
		lone := do(ctx, b, items(0, 2))
		synctest.Wait()
		queued := do(context.Background(), b, items(1, 1))
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case r := <-lone:
			t.Fatalf("the caller left its own call: %v, %v", r.out, r.err)
		default:
		}
		close(gate)
		if r := <-lone; r.err != nil || !slices.Equal(r.out, items(0, 2)) {
			t.Errorf("the lone caller got %v, %v", r.out, r.err)
		}
		if r := <-queued; r.err != nil || !slices.Equal(r.out, items(1, 1)) {
			t.Errorf("the queued caller got %v, %v", r.out, r.err)
		}
		if out, err := b.Do(context.Background(), items(2, 6)); err != nil || !slices.Equal(out, items(2, 6)) {
			t.Errorf("the large request got %v, %v", out, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []bool{true, false, false, false}; !slices.Equal(inDo, want) {
			t.Errorf("calls inside Do: %v, want %v (the lone one only)", inDo, want)
		}
	})
}

// TestMaxCalls: with MaxCalls n, requests that arrive while fewer than n calls run get
// a call of their own at once (MaxQueueDelay 0: no gathering), the next ones queue until
// a call ends, and every caller gets its own results.
func TestMaxCalls(t *testing.T) {
	for _, calls := range []int{0, 1, 2, 3} {
		t.Run(fmt.Sprintf("MaxCalls %d", calls), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				want := max(calls, 1)
				rec := newRecorder(true)
				b := New(rec.call, Options{MaxSize: 8, MaxCalls: calls})
				defer b.Close()
				var waiting []chan result
				for c := range want {
					waiting = append(waiting, do(context.Background(), b, items(c, 1)))
					<-rec.entered // a call of its own while others are still running
				}
				for c := want; c < want+2; c++ {
					waiting = append(waiting, do(context.Background(), b, items(c, 1)))
					waitQueued(t, b, c-want+1) // every call is taken: it waits
				}
				if got := len(rec.sizes()); got != want {
					t.Fatalf("%d calls started; want %d", got, want)
				}
				close(rec.gate)
				for c, ch := range waiting {
					if r := <-ch; r.err != nil || !slices.Equal(r.out, items(c, 1)) {
						t.Errorf("caller %d: %v, %v", c, r.out, r.err)
					}
				}
				if most := rec.mostAtOnce(); most != want {
					t.Errorf("%d calls ran at once, want %d", most, want)
				}
			})
		})
	}
}

// TestGatherStopsAtLastCallSize: a call formed while the model was busy stops
// waiting for company once it holds as many items as the last call to end (the
// callers that may come back), long before MaxQueueDelay (10 s: the requests' 5 s
// context would end first) and short of MaxSize.
func TestGatherStopsAtLastCallSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(true)
		b := New(rec.call, Options{MaxSize: 8, MaxQueueDelay: 10 * time.Second})
		defer b.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		first := do(ctx, b, items(0, 3))
		<-rec.entered
		second := do(ctx, b, items(1, 1))
		waitQueued(t, b, 1)
		close(rec.gate) // the first call ends with 3 items; the second request waits for 2 more
		if r := <-first; r.err != nil {
			t.Fatal(r.err)
		}
		third := do(ctx, b, items(2, 2))
		for i, ch := range []chan result{second, third} {
			if r := <-ch; r.err != nil || !slices.Equal(r.out, items(i+1, []int{1, 2}[i])) {
				t.Fatalf("caller %d: %v, %v", i+1, r.out, r.err)
			}
		}
		if got, want := rec.sizes(), []int{3, 3}; !slices.Equal(got, want) {
			t.Errorf("call sizes %v, want %v", got, want)
		}
	})
}

// TestQueueDelayGathers: a call that is not full, formed while the model was busy,
// waits for company up to MaxQueueDelay from its oldest request's arrival and takes
// what arrives in that time.
func TestQueueDelayGathers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(true)
		b := New(rec.call, Options{MaxSize: 8, MaxQueueDelay: 500 * time.Millisecond})
		defer b.Close()
		first := do(context.Background(), b, items(0, 2))
		<-rec.entered
		second := do(context.Background(), b, items(1, 1))
		waitQueued(t, b, 1)
		close(rec.gate) // the second request now gathers for up to 500 ms from its arrival
		<-first
		third := do(context.Background(), b, items(2, 1))
		for _, ch := range []chan result{second, third} {
			if r := <-ch; r.err != nil {
				t.Fatal(r.err)
			}
		}
		// The bubble's clock stands still while the test runs, so the third arrives
		// while the second gathers: one call of 2, as many as the first call had.
		if got := rec.sizes(); !slices.Equal(got, []int{2, 2}) {
			t.Errorf("call sizes %v, want [2 2]", got)
		}
	})
}

// TestQueueDelayBoundsTheWait: a call that gets no company leaves MaxQueueDelay after
// its oldest request arrived, however long the model kept it queued before that.
func TestQueueDelayBoundsTheWait(t *testing.T) {
	tests := []struct {
		name string
		busy time.Duration // how long the first call holds the model
		want time.Duration // when the second request's answer comes, from its arrival
	}{
		{"gathers the rest of the delay", 100 * time.Millisecond, 500 * time.Millisecond},
		{"delay spent while queued", 800 * time.Millisecond, 800 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := newRecorder(true)
				b := New(rec.call, Options{MaxSize: 8, MaxQueueDelay: 500 * time.Millisecond})
				defer b.Close()
				first := do(context.Background(), b, items(0, 2))
				<-rec.entered
				arrived := time.Now()
				second := do(context.Background(), b, items(1, 1))
				waitQueued(t, b, 1)
				time.Sleep(tt.busy)
				close(rec.gate)
				<-first
				if r := <-second; r.err != nil {
					t.Fatal(r.err)
				}
				if d := time.Since(arrived); d != tt.want {
					t.Errorf("the lone queued request was answered %v after it arrived, want %v", d, tt.want)
				}
				if got := rec.sizes(); !slices.Equal(got, []int{2, 1}) {
					t.Errorf("call sizes %v, want [2 1]", got)
				}
			})
		})
	}
}

// TestCancelledCallerLeaves: a caller whose context ends returns at once with the
// context's error, and its items, not yet dispatched, never reach the model; the others
// in the queue are unaffected.
func TestCancelledCallerLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(true)
		b := New(rec.call, Options{MaxSize: 8, MaxQueueDelay: time.Millisecond})
		defer b.Close()
		first := do(context.Background(), b, items(0, 1))
		<-rec.entered
		ctx, cancel := context.WithCancel(context.Background())
		leaving := do(ctx, b, items(1, 3))
		waitQueued(t, b, 3)
		staying := do(context.Background(), b, items(2, 2))
		waitQueued(t, b, 5)
		cancel()
		if r := <-leaving; !errors.Is(r.err, context.Canceled) { // the gate is still closed
			t.Fatalf("the cancelled caller got %v, %v", r.out, r.err)
		}
		close(rec.gate)
		<-first
		if r := <-staying; r.err != nil || !slices.Equal(r.out, items(2, 2)) {
			t.Errorf("the caller that stayed got %v, %v", r.out, r.err)
		}
		if rec.seen(items(1, 3)[0]) {
			t.Errorf("the cancelled caller's items ran: %v", rec.sizes())
		}
		if got := rec.sizes(); !slices.Equal(got, []int{1, 2}) {
			t.Errorf("call sizes %v, want [1 2]", got)
		}
	})
}

// TestCallFailure: a failing or panicking call fails every request in it, and only
// those; the batcher keeps serving.
func TestCallFailure(t *testing.T) {
	tests := []struct {
		name  string
		set   func(*recorder)
		check func(error) bool
	}{
		{"error", func(r *recorder) { r.err = errors.New("runtime fault") }, func(err error) bool { return err != nil && err.Error() == "runtime fault" }},
		{"panic", func(r *recorder) { r.panics = true }, func(err error) bool { var pe *pipeline.PanicError; return errors.As(err, &pe) && len(pe.Stack) > 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := newRecorder(true)
				b := New(rec.call, Options{MaxSize: 8, MaxQueueDelay: time.Millisecond})
				defer b.Close()
				first := do(context.Background(), b, items(0, 1))
				<-rec.entered
				a, c := do(context.Background(), b, items(1, 1)), do(context.Background(), b, items(2, 1))
				waitQueued(t, b, 2)
				rec.mu.Lock()
				tt.set(rec)
				rec.mu.Unlock()
				close(rec.gate)
				for _, ch := range []chan result{first, a, c} {
					if r := <-ch; !tt.check(r.err) {
						t.Errorf("got %v, %v", r.out, r.err)
					}
				}
				rec.mu.Lock()
				rec.err, rec.panics = nil, false
				rec.mu.Unlock()
				if out, err := b.Do(context.Background(), items(3, 1)); err != nil || !slices.Equal(out, items(3, 1)) {
					t.Errorf("after the failure: %v, %v", out, err)
				}
			})
		})
	}
}

// TestCloseDrains: Close runs what is queued before it returns; a call after Close is
// refused.
func TestCloseDrains(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(true)
		b := New(rec.call, Options{MaxSize: 8, MaxQueueDelay: 10 * time.Second})
		first := do(context.Background(), b, items(0, 1))
		<-rec.entered
		queued := do(context.Background(), b, items(1, 2))
		waitQueued(t, b, 2)
		closed := make(chan struct{})
		go func() { b.Close(); close(closed) }()
		close(rec.gate)
		<-closed
		if r := <-queued; r.err != nil || !slices.Equal(r.out, items(1, 2)) {
			t.Errorf("queued before Close: %v, %v", r.out, r.err)
		}
		<-first
		if _, err := b.Do(context.Background(), items(2, 1)); !errors.Is(err, ErrClosed) {
			t.Errorf("Do after Close = %v, want ErrClosed", err)
		}
	})
}

// TestDeadlineDropsItems: a request whose deadline passes while it waits behind a
// busy model is dropped before the model call it would have joined, and one whose
// deadline has passed when it arrives never runs, even on an idle model (where a lone
// request would run its own call).
func TestDeadlineDropsItems(t *testing.T) {
	tests := []struct {
		name string
		busy bool
	}{
		{"passed while queued", true},
		{"passed on arrival", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := newRecorder(tt.busy)
				b := New(rec.call, Options{MaxSize: 8})
				defer b.Close()
				var first chan result
				if tt.busy {
					first = do(context.Background(), b, items(0, 1))
					<-rec.entered
				}
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				if !tt.busy {
					time.Sleep(time.Second)
				}
				late := do(ctx, b, items(1, 3))
				if tt.busy {
					waitQueued(t, b, 3)
					time.Sleep(time.Second) // the deadline passes with the model busy
				}
				if r := <-late; !errors.Is(r.err, context.DeadlineExceeded) {
					t.Fatalf("the late caller got %v, %v", r.out, r.err)
				}
				if tt.busy {
					close(rec.gate)
					<-first
				}
				if rec.seen(items(1, 3)[0]) {
					t.Errorf("the late caller's items ran: calls %v", rec.sizes())
				}
				if got := b.Queued(); got != 0 {
					t.Errorf("%d items still queued", got)
				}
			})
		})
	}
}
