package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/registry"
)

// TestStats: each version counts its requests (success and failure, end to end), the
// items inferred, its model calls by batch size and its pipeline stages, across a
// reload; every other version keeps its own.
func TestStats(t *testing.T) {
	fail := errors.New("the runtime failed")
	model := &funcModel{predict: func(_ context.Context, b []any) ([]any, error) {
		for _, it := range b {
			if string(it.(json.RawMessage)) == `"fail"` {
				return nil, fail
			}
		}
		return b, nil
	}}
	src := registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{
		{Version: "v1", Loader: loaderOf(model)}, {Version: "v2", Loader: loaderOf(newModel("v2"))},
	}}}
	r := started(t, src)
	before := time.Now()
	run := func(items ...string) error {
		raw := make([]json.RawMessage, len(items))
		for i, it := range items {
			raw[i] = json.RawMessage(it)
		}
		_, err := r.Predict(context.Background(), registry.Request{Model: "m", Version: "v1", Items: raw})
		return err
	}
	for _, items := range [][]string{{"1"}, {"1", "2"}, {"1"}} {
		if err := run(items...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Reload(context.Background(), "m", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := run(`"fail"`); !errors.Is(err, fail) {
		t.Fatalf("the failing request: %v", err)
	}

	all, err := r.Stats("m", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Version != "v1" || all[1].Version != "v2" {
		t.Fatalf("Stats(m) = %+v, want v1 and v2", all)
	}
	st, v2 := all[0], all[1]
	counts := []struct {
		name      string
		got, want uint64
	}{
		{"success", st.Success.Count, 3},
		{"fail", st.Fail.Count, 1},
		{"inferences", st.Inferences, 4},
		{"executions", st.Executions, 4},
		{"model stage", st.Infer.Count, 4},
		{"queue (no batcher)", st.Queue.Count, 0},
		{"v2's success", v2.Success.Count, 0},
	}
	for _, c := range counts {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	if st.Success.Total <= 0 || st.Infer.Total <= 0 || st.Success.Total < st.Infer.Total/4 {
		t.Errorf("times: success %v, model %v", st.Success.Total, st.Infer.Total)
	}
	if st.LastInference.Before(before) || !v2.LastInference.IsZero() {
		t.Errorf("last inference %v (v2 %v), want after %v (v2 never)", st.LastInference, v2.LastInference, before)
	}
	if len(st.Batches) != 2 || st.Batches[0].Size != 1 || st.Batches[0].Calls.Count != 3 || st.Batches[1].Size != 2 || st.Batches[1].Calls.Count != 1 {
		t.Errorf("batches %+v, want 3 calls of 1 (the failed one included) and 1 of 2", st.Batches)
	}

	one, err := r.Stats("m", "v2")
	if err != nil || len(one) != 1 || one[0].Version != "v2" {
		t.Errorf("Stats(m, v2) = %+v, %v", one, err)
	}
	if every, err := r.Stats("", ""); err != nil || len(every) != 2 {
		t.Errorf("Stats() = %d versions, %v", len(every), err)
	}
	if _, err := r.Stats("m", "v9"); !errors.Is(err, registry.ErrVersionNotFound) {
		t.Errorf("an unknown version: %v", err)
	}
	if _, err := r.Stats("x", ""); !errors.Is(err, registry.ErrModelNotFound) {
		t.Errorf("an unknown model: %v", err)
	}
}

// TestStatsOfBatchedCalls: with dynamic batching, requests that share a model call
// count as one execution of their summed size, each with its wait in the batcher.
func TestStatsOfBatchedCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newEchoModel(true)
		r := batchedRegistry(t, registry.Options{}, registry.VersionSpec{Version: "v1", Loader: batchedLoader(m, 8, time.Millisecond)})
		first := predictAsync(r, registry.Request{Model: "m", Items: raw(`0`)})
		<-m.entered
		second := predictAsync(r, registry.Request{Model: "m", Items: raw(`1`)})
		waitQueued(t, r, 1)
		third := predictAsync(r, registry.Request{Model: "m", Items: raw(`2`, `3`)})
		waitQueued(t, r, 3)
		close(m.gate)
		for _, ch := range []chan outcome{first, second, third} {
			if o := <-ch; o.err != nil {
				t.Fatal(o.err)
			}
		}
		st, err := r.Stats("m", "v1")
		if err != nil {
			t.Fatal(err)
		}
		s := st[0]
		if s.Success.Count != 3 || s.Inferences != 4 || s.Queue.Count != 3 || s.Executions != 2 {
			t.Errorf("%+v: want 3 requests of 4 items, each queued, in 2 calls", s)
		}
		if len(s.Batches) != 2 || s.Batches[0].Size != 1 || s.Batches[1].Size != 3 || s.Batches[1].Calls.Count != 1 {
			t.Errorf("batches %+v, want one call of 1 and one of 3", s.Batches)
		}
	})
}
