package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// echoModel returns its items, recording the size of every call. Calls made while gate
// is open (non-nil, not closed) wait for it.
type echoModel struct {
	mu      sync.Mutex
	sizes   []int
	seen    []string
	gate    chan struct{}
	entered chan struct{}
	closes  int
}

func newEchoModel(gated bool) *echoModel {
	m := &echoModel{entered: make(chan struct{}, 64)}
	if gated {
		m.gate = make(chan struct{})
	}
	return m
}

func (m *echoModel) Predict(_ context.Context, batch []any) ([]any, error) {
	m.mu.Lock()
	m.sizes = append(m.sizes, len(batch))
	for _, v := range batch {
		m.seen = append(m.seen, string(v.(json.RawMessage)))
	}
	m.mu.Unlock()
	m.entered <- struct{}{}
	if m.gate != nil {
		<-m.gate
	}
	return batch, nil
}

func (m *echoModel) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closes++
	return nil
}

func (m *echoModel) calls() ([]int, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sizes), slices.Clone(m.seen)
}

// rejectBad is a preprocess step that refuses the item "bad", as to_tensor refuses a
// malformed one.
type rejectBad struct{}

func (rejectBad) Name() string { return "reject_bad" }

func (rejectBad) Apply(_ context.Context, batch []any) ([]any, error) {
	for i, v := range batch {
		if string(v.(json.RawMessage)) == `"bad"` {
			return nil, pipeline.AtItem(i, pipeline.Invalid("", "bad is not accepted"))
		}
	}
	return batch, nil
}

// batchedLoader loads m behind rejectBad with dynamic batching on.
func batchedLoader(m pipeline.Model, maxSize int, delay time.Duration) registry.Loader {
	return registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
		return &pipeline.Pipeline{Pre: []pipeline.Step{rejectBad{}}, Model: m,
			Batching: pipeline.Batching{Enabled: true, MaxSize: maxSize, MaxQueueDelay: delay}}, nil
	})
}

// batchObserver records the batch metrics the registry reports.
type batchObserver struct {
	registry.NopObserver
	mu      sync.Mutex
	batched []int
	queued  int
}

func (o *batchObserver) Batched(_, _ string, n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.batched = append(o.batched, n)
}

func (o *batchObserver) Queued(string, string, time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.queued++
}

func batchedRegistry(t *testing.T, opts registry.Options, versions ...registry.VersionSpec) *registry.Registry {
	t.Helper()
	opts.Sources = []registry.Source{registry.Fixed{{Name: "m", Versions: versions}}}
	opts.Rand = rand.New(rand.NewPCG(1, 2))
	r := newRegistry(t, opts)
	if err := r.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Load(context.Background())
	return r
}

type outcome struct {
	p   registry.Prediction
	err error
}

func predictAsync(r *registry.Registry, req registry.Request) chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		p, err := r.Predict(context.Background(), req)
		ch <- outcome{p, err}
	}()
	return ch
}

func raw(vs ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(vs))
	for i, v := range vs {
		out[i] = json.RawMessage(v)
	}
	return out
}

func waitQueued(t *testing.T, r *registry.Registry, n int) {
	t.Helper()
	waitFor(t, strconv.Itoa(n)+" items queued", func() bool { return registry.QueuedItems(r, "m", "v1") == n })
}

// TestBatchingCoalescesAndInvalidFailsAlone: requests queued behind a call in flight
// (single, batch and job executions alike) share the next model call, each getting its own results in its own order; a request
// whose input is invalid fails in its own preprocessing, named as the client sent it,
// and never joins; the batch metrics see a call of more than one request.
func TestBatchingCoalescesAndInvalidFailsAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newEchoModel(true)
		obs := &batchObserver{}
		r := batchedRegistry(t, registry.Options{Observer: obs}, registry.VersionSpec{Version: "v1", Loader: batchedLoader(m, 8, time.Millisecond)})

		first := predictAsync(r, registry.Request{Model: "m", Items: raw(`0`)})
		<-m.entered
		// A job execution (ModeAsync, as internal/app's job predictor calls) joins too.
		single := predictAsync(r, registry.Request{Model: "m", Items: raw(`1`), Mode: registry.ModeAsync})
		waitQueued(t, r, 1)
		batch := predictAsync(r, registry.Request{Model: "m", Items: raw(`2`, `3`, `4`)})
		waitQueued(t, r, 4)
		badSingle := predictAsync(r, registry.Request{Model: "m", Items: raw(`"bad"`)})
		badBatch := predictAsync(r, registry.Request{Model: "m", Items: raw(`5`, `"bad"`)})
		for _, tc := range []struct {
			ch   chan outcome
			item int
		}{{badSingle, 0}, {badBatch, 1}} {
			o := <-tc.ch // the gate is still closed: they failed without a model call
			var ie *pipeline.InputError
			if !errors.As(o.err, &ie) || ie.Item != tc.item {
				t.Errorf("invalid request: %v, want an input error at item %d", o.err, tc.item)
			}
		}
		close(m.gate)
		want := []struct {
			ch   chan outcome
			want []string
		}{{first, []string{`0`}}, {single, []string{`1`}}, {batch, []string{`2`, `3`, `4`}}}
		for _, w := range want {
			o := <-w.ch
			var got []string
			for _, res := range o.p.Results {
				got = append(got, string(res))
			}
			if o.err != nil || !slices.Equal(got, w.want) {
				t.Errorf("got %v, %v; want %v", got, o.err, w.want)
			}
		}
		sizes, seen := m.calls()
		if !slices.Equal(sizes, []int{1, 4}) || slices.Contains(seen, `"bad"`) || slices.Contains(seen, `5`) {
			t.Errorf("model calls %v over %v; want [1 4], nothing of the invalid requests", sizes, seen)
		}
		obs.mu.Lock()
		defer obs.mu.Unlock()
		if !slices.Equal(obs.batched, []int{1, 4}) || obs.queued != 3 {
			t.Errorf("observed batch sizes %v and %d queue waits; want [1 4] and 3", obs.batched, obs.queued)
		}
	})
}

// TestBatchingLoneRequestDoesNotWait: with max_queue_delay 10 s, a request that finds
// the model idle runs at once: the 5 s context would end first if it waited.
func TestBatchingLoneRequestDoesNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newEchoModel(false)
		r := batchedRegistry(t, registry.Options{}, registry.VersionSpec{Version: "v1", Loader: batchedLoader(m, 8, 10*time.Second)})
		for i := range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			p, err := r.Predict(ctx, registry.Request{Model: "m", Items: raw(strconv.Itoa(i))})
			cancel()
			if err != nil || string(p.Results[0]) != strconv.Itoa(i) {
				t.Fatalf("request %d: %v, %v", i, p.Results, err)
			}
		}
	})
}

// TestBatchingCancelledCallerLeaves: a caller whose context ends while queued returns
// at once; its items never reach the model.
func TestBatchingCancelledCallerLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newEchoModel(true)
		r := batchedRegistry(t, registry.Options{}, registry.VersionSpec{Version: "v1", Loader: batchedLoader(m, 8, time.Millisecond)})
		first := predictAsync(r, registry.Request{Model: "m", Items: raw(`0`)})
		<-m.entered
		ctx, cancel := context.WithCancel(context.Background())
		left := make(chan error, 1)
		go func() {
			_, err := r.Predict(ctx, registry.Request{Model: "m", Items: raw(`"gone"`)})
			left <- err
		}()
		waitQueued(t, r, 1)
		cancel()
		if err := <-left; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled caller got %v", err)
		}
		close(m.gate)
		<-first
		if o := <-predictAsync(r, registry.Request{Model: "m", Items: raw(`1`)}); o.err != nil {
			t.Fatal(o.err)
		}
		if _, seen := m.calls(); slices.Contains(seen, `"gone"`) {
			t.Errorf("the cancelled caller's item ran: %v", seen)
		}
	})
}

// TestBatchingReloadDrains: a reload swaps in a new pipeline at once; requests running
// or queued in the old version's batcher finish on the old model, which closes after
// the last of them.
func TestBatchingReloadDrains(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var models []*echoModel
		loader := registry.LoaderFunc(func(ctx context.Context) (*pipeline.Pipeline, error) {
			mu.Lock()
			m := newEchoModel(len(models) == 0)
			models = append(models, m)
			mu.Unlock()
			return batchedLoader(m, 8, time.Millisecond).Load(ctx)
		})
		r := batchedRegistry(t, registry.Options{}, registry.VersionSpec{Version: "v1", Loader: loader})
		old := models[0]
		running := predictAsync(r, registry.Request{Model: "m", Items: raw(`0`)})
		<-old.entered
		queued := predictAsync(r, registry.Request{Model: "m", Items: raw(`1`, `2`)})
		waitQueued(t, r, 2)
		if _, err := r.Reload(context.Background(), "m", "v1"); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		fresh := models[1]
		mu.Unlock()
		if o := <-predictAsync(r, registry.Request{Model: "m", Items: raw(`3`)}); o.err != nil {
			t.Fatal(o.err)
		}
		if sizes, _ := fresh.calls(); !slices.Equal(sizes, []int{1}) {
			t.Errorf("the new pipeline ran %v, want the new request only", sizes)
		}
		old.mu.Lock()
		closes := old.closes
		old.mu.Unlock()
		if closes != 0 {
			t.Fatal("the old pipeline closed with requests in its batcher")
		}
		close(old.gate)
		for _, ch := range []chan outcome{running, queued} {
			if o := <-ch; o.err != nil {
				t.Errorf("a request of the old pipeline: %v", o.err)
			}
		}
		waitFor(t, "the old pipeline to close", func() bool { old.mu.Lock(); defer old.mu.Unlock(); return old.closes == 1 })
		if sizes, _ := old.calls(); !slices.Equal(sizes, []int{1, 2}) {
			t.Errorf("the old pipeline ran %v, want [1 2]", sizes)
		}
	})
}

// TestBatchingOffServerWide: with NoDynamicBatching (DYNAMIC_BATCHING=false) a version
// that asks for batching has no batcher: concurrent requests are concurrent model calls.
func TestBatchingOffServerWide(t *testing.T) {
	m := newEchoModel(true)
	obs := &batchObserver{}
	r := batchedRegistry(t, registry.Options{NoDynamicBatching: true, Observer: obs}, registry.VersionSpec{Version: "v1", Loader: batchedLoader(m, 8, time.Millisecond)})
	if n := registry.QueuedItems(r, "m", "v1"); n != -1 {
		t.Fatalf("a batcher exists (%d queued)", n)
	}
	a := predictAsync(r, registry.Request{Model: "m", Items: raw(`1`)})
	b := predictAsync(r, registry.Request{Model: "m", Items: raw(`2`, `3`)})
	<-m.entered
	<-m.entered // both are in the model at once
	close(m.gate)
	for _, ch := range []chan outcome{a, b} {
		if o := <-ch; o.err != nil {
			t.Fatal(o.err)
		}
	}
	sizes, _ := m.calls()
	slices.Sort(sizes)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	slices.Sort(obs.batched)
	if !slices.Equal(sizes, []int{1, 2}) || !slices.Equal(obs.batched, []int{1, 2}) || obs.queued != 0 {
		t.Errorf("model calls %v, observed %v and %d queue waits; want [1 2], [1 2], 0", sizes, obs.batched, obs.queued)
	}
}
