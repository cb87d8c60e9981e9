package registry_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// repoSource is a model repository whose content a test changes, as an operator copies
// files in and out of MODELS_DIR.
type repoSource struct {
	mu    sync.Mutex
	specs []registry.ModelSpec
}

func (s *repoSource) set(specs ...registry.ModelSpec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.specs = specs
}

func (s *repoSource) Models(context.Context) ([]registry.ModelSpec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.specs, nil
}

func (s *repoSource) Model(ctx context.Context, name string) (registry.ModelSpec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return registry.Fixed(s.specs).Model(ctx, name)
}

func states(t *testing.T, r *registry.Registry) map[string]registry.Status {
	t.Helper()
	idx, err := r.Index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]registry.Status{}
	for _, e := range idx {
		out[e.Name+" "+e.Version] = e.Status
	}
	return out
}

func wantStates(t *testing.T, r *registry.Registry, want map[string]registry.Status) {
	t.Helper()
	got := states(t, r)
	if len(got) != len(want) {
		t.Errorf("index %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("index %v, want %v", got, want)
			return
		}
	}
}

// TestLoadModel: load brings the registry to what the repository holds of one model:
// a version added since start loads, one deleted is dropped, one that serves is left
// as it is, and the index shows what is on disk but not loaded.
func TestLoadModel(t *testing.T) {
	b := &builds{}
	src := &repoSource{}
	src.set(registry.ModelSpec{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: b}}})
	r := started(t, src)
	src.set(
		registry.ModelSpec{Name: "m", Versions: append([]registry.VersionSpec{{Version: "v1", Loader: b}}, versions("v2")...)},
		registry.ModelSpec{Name: "n", Versions: versions("v1")},
	)
	wantStates(t, r, map[string]registry.Status{"m v1": registry.StatusReady, "m v2": registry.StatusNotLoaded, "n v1": registry.StatusNotLoaded})

	if err := r.LoadModel(context.Background(), "m"); err != nil {
		t.Fatal(err)
	}
	if p := predict(t, r, "m", "v2"); servedBy(t, p) != "v2" {
		t.Errorf("v2 served by %s", servedBy(t, p))
	}
	if b.count() != 1 {
		t.Errorf("v1 was built %d times; a version that serves is left as it is", b.count())
	}
	wantStates(t, r, map[string]registry.Status{"m v1": registry.StatusReady, "m v2": registry.StatusReady, "n v1": registry.StatusNotLoaded})

	if err := r.LoadModel(context.Background(), "n"); err != nil {
		t.Fatal(err)
	}
	src.set(registry.ModelSpec{Name: "m", Versions: versions("v2")}, registry.ModelSpec{Name: "n", Versions: versions("v1")})
	if err := r.LoadModel(context.Background(), "m"); err != nil {
		t.Fatal(err)
	}
	wantStates(t, r, map[string]registry.Status{"m v2": registry.StatusReady, "n v1": registry.StatusReady})
	if _, err := r.Predict(context.Background(), registry.Request{Model: "m", Version: "v1", Items: one}); !errors.Is(err, registry.ErrVersionNotFound) {
		t.Errorf("the deleted version: %v", err)
	}

	t.Run("a version that fails does not stop the others", func(t *testing.T) {
		src.set(registry.ModelSpec{Name: "m", Versions: append(versions("v2", "v3"), registry.VersionSpec{Version: "v4", Loader: failingLoader("bad weights")})})
		err := r.LoadModel(context.Background(), "m")
		if !errors.Is(err, registry.ErrReloadFailed) {
			t.Fatalf("LoadModel = %v, want ErrReloadFailed", err)
		}
		wantStates(t, r, map[string]registry.Status{"m v2": registry.StatusReady, "m v3": registry.StatusReady, "m v4": registry.StatusFailed, "n v1": registry.StatusReady})
	})
	t.Run("a model the repository does not have", func(t *testing.T) {
		if err := r.LoadModel(context.Background(), "x"); !errors.Is(err, registry.ErrModelNotFound) {
			t.Errorf("LoadModel = %v", err)
		}
	})
}

// TestUnloadModel: unload takes every version of the model out of service at once,
// returns only after the requests in flight on them have finished on their pipeline,
// closes the pipelines, and leaves other models serving; load brings it back.
func TestUnloadModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gated := newGatedModel("m1")
		src := &repoSource{}
		src.set(
			registry.ModelSpec{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: loaderOf(gated)}}},
			registry.ModelSpec{Name: "n", Versions: versions("v1")},
		)
		r := started(t, src)
		inflight := predictAsync(r, registry.Request{Model: "m", Version: "v1", Items: one})
		<-gated.entered

		unloaded := make(chan error, 1)
		go func() { unloaded <- r.UnloadModel(context.Background(), "m") }()
		synctest.Wait()
		select {
		case err := <-unloaded:
			t.Fatalf("UnloadModel returned (%v) with a request in flight", err)
		default:
		}
		if _, err := r.Predict(context.Background(), registry.Request{Model: "m", Items: one}); !errors.Is(err, registry.ErrModelNotFound) {
			t.Errorf("a new request while unloading: %v, want ErrModelNotFound", err)
		}
		if p := predict(t, r, "n", ""); servedBy(t, p) != "v1" {
			t.Errorf("n served by %s", servedBy(t, p))
		}
		close(gated.gate)
		if o := <-inflight; o.err != nil || servedBy(t, o.p) != "m1" {
			t.Errorf("the request in flight: %v, %v", o.p, o.err)
		}
		if err := <-unloaded; err != nil {
			t.Fatal(err)
		}
		if n := gated.closes.Load(); n != 1 {
			t.Errorf("the pipeline was closed %d times by the time UnloadModel returned, want once", n)
		}
		wantStates(t, r, map[string]registry.Status{"m v1": registry.StatusNotLoaded, "n v1": registry.StatusReady})
		if err := r.UnloadModel(context.Background(), "m"); !errors.Is(err, registry.ErrModelNotFound) {
			t.Errorf("unloading it again: %v", err)
		}

		src.set(registry.ModelSpec{Name: "m", Versions: versions("v1")}, registry.ModelSpec{Name: "n", Versions: versions("v1")})
		if err := r.LoadModel(context.Background(), "m"); err != nil {
			t.Fatal(err)
		}
		if p := predict(t, r, "m", ""); servedBy(t, p) != "v1" {
			t.Errorf("after the load, served by %s", servedBy(t, p))
		}
	})
}

// TestLoadTimeout: a load that overruns LoadTimeout fails with the reason, the version
// keeps its state, and the next reload of the version is not held up behind the one
// still running (a FIFO as an artifact once made every later reload of its version
// hang too). The abandoned load's pipeline is closed if it ever finishes.
func TestLoadTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		stuck := newModel("stuck")
		var calls atomic.Int32
		loader := registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
			if calls.Add(1) == 1 {
				<-release // ignores its context, as a read of a FIFO would
				return pipelineOf(stuck), nil
			}
			return pipelineOf(newModel("v1")), nil
		})
		r := newRegistry(t, registry.Options{
			Sources:     []registry.Source{registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: loader}}}}},
			LoadTimeout: time.Minute,
		})
		if err := r.Discover(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.Load(context.Background())
		if e := entry(t, r, "m", "v1"); e.Status != registry.StatusFailed || !strings.Contains(e.Err.Error(), "took longer than 1m0s (MODEL_LOAD_TIMEOUT)") {
			t.Fatalf("after an overrun: %s %v", e.Status, e.Err)
		}
		if _, err := r.Reload(context.Background(), "m", "v1"); err != nil {
			t.Fatalf("the reload after it: %v", err)
		}
		if p := predict(t, r, "m", "v1"); servedBy(t, p) != "v1" {
			t.Errorf("served by %s", servedBy(t, p))
		}
		close(release)
		waitFor(t, "the abandoned pipeline to close", func() bool { return stuck.closes.Load() == 1 })
	})
}
