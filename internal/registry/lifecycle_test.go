package registry_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// canaryModel is iris as the example repository routes it: v1 takes 90% of the
// requests that name no version, the v2 canary 10%.
func canaryModel() registry.ModelSpec {
	return registry.ModelSpec{Name: "iris",
		Rule:     registry.Rule{Strategy: registry.Weighted, Weights: map[string]float64{"v1": 90, "v2": 10}},
		Versions: versions("v1", "v2")}
}

// TestControlStorm: loads, unloads and reloads of one model from many goroutines run
// one at a time, so the model is always whole: after each call both versions serve or
// neither is held, no load or reload answers ErrModelNotFound for a model its source
// has, and a request that names no version never goes to the canary alone.
func TestControlStorm(t *testing.T) {
	src := &repoSource{}
	src.set(canaryModel())
	r := started(t, src)
	ctx := context.Background()
	stop := make(chan struct{})
	var traffic sync.WaitGroup
	var v1, v2 int
	var mu sync.Mutex
	for range 2 {
		traffic.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				p, err := r.Predict(ctx, registry.Request{Model: "iris", Items: one})
				switch {
				case err == nil:
					mu.Lock()
					if servedBy(t, p) == "v1" {
						v1++
					} else {
						v2++
					}
					mu.Unlock()
				case !errors.Is(err, registry.ErrModelNotFound) && !errors.Is(err, registry.ErrLoading):
					t.Errorf("a request during the storm: %v", err)
				}
			}
		})
	}
	var storm sync.WaitGroup
	for g := range 8 {
		storm.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(g), 7))
			for range 15 { // each load measures its memory around two GCs: slow under -race
				var err error
				switch op := rnd.IntN(4); op {
				case 0:
					err = r.LoadModel(ctx, "iris")
				case 1:
					if err = r.UnloadModel(ctx, "iris"); errors.Is(err, registry.ErrModelNotFound) {
						err = nil // unloaded already
					}
				default:
					_, err = r.Reload(ctx, "iris", fmt.Sprintf("v%d", op-1))
				}
				if err != nil {
					t.Errorf("during the storm: %v", err)
				}
				if st := states(t, r); st["iris v1"] != st["iris v2"] {
					// Another call may be half-way through: only a loading version is
					// allowed to differ, and only while a load has not put both in place.
					if st["iris v1"] != registry.StatusLoading && st["iris v2"] != registry.StatusLoading {
						t.Errorf("iris half there: %v", st)
					}
				}
			}
		})
	}
	storm.Wait()
	close(stop)
	traffic.Wait()
	if st := states(t, r); st["iris v1"] != st["iris v2"] {
		t.Errorf("after the storm iris is half there: %v", st)
	}
	if v1+v2 >= 40 && float64(v2)/float64(v1+v2) > 0.35 {
		t.Errorf("the canary took %d of %d requests that named no version (its weight is 10%%)", v2, v1+v2)
	}
	if err := r.LoadModel(ctx, "iris"); err != nil {
		t.Fatal(err)
	}
	wantStates(t, r, map[string]registry.Status{"iris v1": registry.StatusReady, "iris v2": registry.StatusReady})
}

// TestReloadOfAnUnloadedModel: a reload of one version of a model the registry does not
// hold loads the whole model, so its weighted rule finds both versions rather than
// sending everything to the one reloaded.
func TestReloadOfAnUnloadedModel(t *testing.T) {
	src := &repoSource{}
	src.set(canaryModel())
	r := started(t, src)
	ctx := context.Background()
	if err := r.UnloadModel(ctx, "iris"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reload(ctx, "iris", "v2"); err != nil {
		t.Fatal(err)
	}
	wantStates(t, r, map[string]registry.Status{"iris v1": registry.StatusReady, "iris v2": registry.StatusReady})
	n := 0
	for range 100 {
		if servedBy(t, predict(t, r, "iris", "")) == "v2" {
			n++
		}
	}
	if n > 35 {
		t.Errorf("the canary took %d of 100 requests after the reload", n)
	}
	if _, err := r.Reload(ctx, "iris", "v3"); !errors.Is(err, registry.ErrVersionNotFound) {
		t.Errorf("reload of a version the source lacks: %v", err)
	}
}

// TestLoadModelPutsVersionsInPlaceTogether: while a load builds a model's versions none
// serves, so a request that names no version waits for the model (ErrLoading) rather
// than going to whichever version was built first.
func TestLoadModelPutsVersionsInPlaceTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		gated := registry.LoaderFunc(func(ctx context.Context) (*pipeline.Pipeline, error) {
			<-gate
			return pipelineOf(newModel("v1")), nil
		})
		src := &repoSource{}
		r := started(t, src)
		src.set(registry.ModelSpec{Name: "iris", Rule: canaryModel().Rule,
			Versions: []registry.VersionSpec{{Version: "v1", Loader: gated}, versions("v2")[0]}})
		loaded := make(chan error, 1)
		go func() { loaded <- r.LoadModel(context.Background(), "iris") }()
		synctest.Wait()
		if !r.Ready() {
			t.Error("a load after start made the registry unready")
		}
		wantStates(t, r, map[string]registry.Status{"iris v1": registry.StatusLoading, "iris v2": registry.StatusLoading})
		if _, err := r.Predict(context.Background(), registry.Request{Model: "iris", Items: one}); !errors.Is(err, registry.ErrLoading) {
			t.Errorf("a request while iris loads: %v, want ErrLoading", err)
		}
		close(gate)
		if err := <-loaded; err != nil {
			t.Fatal(err)
		}
		wantStates(t, r, map[string]registry.Status{"iris v1": registry.StatusReady, "iris v2": registry.StatusReady})
	})
}

// TestFailedLoadAfterStart: a version whose load at start failed holds readiness back
// (FailedAtStart) until it loads; one whose load after start fails never does. A
// failed reload of a version that serves is kept beside it (Entry.LoadErr) until a
// reload succeeds.
func TestFailedLoadAfterStart(t *testing.T) {
	fail := true
	flaky := registry.LoaderFunc(func(ctx context.Context) (*pipeline.Pipeline, error) {
		if fail {
			return nil, errors.New("weights truncated")
		}
		return pipelineOf(newModel("ok")), nil
	})
	src := &repoSource{}
	src.set(registry.ModelSpec{Name: "bad", Versions: []registry.VersionSpec{{Version: "v1", Loader: flaky}}})
	r := started(t, src)
	ctx := context.Background()
	if !r.Ready() || !r.FailedAtStart() || !entry(t, r, "bad", "v1").AtStart {
		t.Fatalf("after a failed load at start: ready %v, failed at start %v, %+v", r.Ready(), r.FailedAtStart(), entry(t, r, "bad", "v1"))
	}
	if _, err := r.Reload(ctx, "bad", "v1"); !errors.Is(err, registry.ErrReloadFailed) {
		t.Fatalf("reload: %v", err)
	}
	if !r.FailedAtStart() {
		t.Error("a failed reload of the version that failed at start made the registry ready")
	}
	if err := r.UnloadModel(ctx, "bad"); err != nil {
		t.Fatal(err)
	}
	if r.FailedAtStart() {
		t.Error("the version that failed at start still holds readiness after its unload")
	}

	tests := []struct {
		name string
		load func() error
	}{
		{"LoadModel", func() error { return r.LoadModel(ctx, "bad") }},
		{"Reload", func() error { _, err := r.Reload(ctx, "bad", "v1"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.load(); !errors.Is(err, registry.ErrReloadFailed) {
				t.Fatalf("%s = %v, want ErrReloadFailed", tt.name, err)
			}
			if e := entry(t, r, "bad", "v1"); e.Status != registry.StatusFailed || e.AtStart || r.FailedAtStart() {
				t.Errorf("after a failed load after start: %+v, failed at start %v", e, r.FailedAtStart())
			}
		})
	}

	fail = false
	if _, err := r.Reload(ctx, "bad", "v1"); err != nil {
		t.Fatal(err)
	}
	fail = true
	if _, err := r.Reload(ctx, "bad", "v1"); !errors.Is(err, registry.ErrReloadFailed) {
		t.Fatalf("reload: %v", err)
	}
	if e := entry(t, r, "bad", "v1"); e.Status != registry.StatusReady || e.LoadErr == nil || !strings.Contains(e.LoadErr.Error(), "weights truncated") {
		t.Errorf("a failed reload beside a pipeline that serves: %+v", e)
	}
	fail = false
	if _, err := r.Reload(ctx, "bad", "v1"); err != nil {
		t.Fatal(err)
	}
	if e := entry(t, r, "bad", "v1"); e.LoadErr != nil {
		t.Errorf("a reload that succeeded left LoadErr %v", e.LoadErr)
	}
}

// TestUnloadWaitsForClaims: an unload refuses new requests at once but lets the work
// claimed for the model (the jobs accepted for it) run on it, and drops the model when
// the claims are released; past UnloadTimeout it drops it anyway, and a job that runs
// after that fails with ErrModelUnloaded until the model is loaded again.
func TestUnloadWaitsForClaims(t *testing.T) {
	for _, tt := range []struct {
		name    string
		timeout time.Duration
		release bool // the claim is released within the timeout
	}{
		{"claims released", time.Minute, true},
		{"past UnloadTimeout", time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &repoSource{}
				src.set(registry.ModelSpec{Name: "m", Versions: versions("v1")})
				r := newRegistry(t, registry.Options{Sources: []registry.Source{src}, UnloadTimeout: tt.timeout})
				if err := r.Discover(context.Background()); err != nil {
					t.Fatal(err)
				}
				r.Load(context.Background())
				ctx := context.Background()
				release := r.Claim("m")
				unloaded := make(chan error, 1)
				go func() { unloaded <- r.UnloadModel(ctx, "m") }()
				synctest.Wait()
				select {
				case err := <-unloaded:
					t.Fatalf("UnloadModel returned (%v) with a claim held", err)
				default:
				}
				if e := entry(t, r, "m", "v1"); !e.Unloading {
					t.Errorf("while the unload waits: %+v", e)
				}
				if _, err := r.Predict(ctx, registry.Request{Model: "m", Items: one}); !errors.Is(err, registry.ErrModelNotFound) {
					t.Errorf("a new request while unloading: %v, want ErrModelNotFound", err)
				}
				if _, err := r.Resolve("m", "v1"); !errors.Is(err, registry.ErrModelNotFound) {
					t.Errorf("a new submission while unloading: %v, want ErrModelNotFound", err)
				}
				job := registry.Request{Model: "m", Version: "v1", Items: one, Mode: registry.ModeAsync}
				if _, err := r.Predict(ctx, job); err != nil {
					t.Errorf("a job accepted before the unload: %v", err)
				}
				if tt.release {
					release()
				} else {
					time.Sleep(tt.timeout)
				}
				if err := <-unloaded; err != nil {
					t.Fatal(err)
				}
				if _, err := r.Predict(ctx, job); !errors.Is(err, registry.ErrModelUnloaded) {
					t.Errorf("a job after the unload: %v, want ErrModelUnloaded", err)
				} else if !strings.Contains(err.Error(), "unloaded before this job could run") {
					t.Errorf("a job after the unload: %v", err)
				}
				if _, err := r.Predict(ctx, registry.Request{Model: "m", Items: one}); !errors.Is(err, registry.ErrModelNotFound) || errors.Is(err, registry.ErrModelUnloaded) {
					t.Errorf("a new request after the unload: %v, want ErrModelNotFound", err)
				}
				release()
				if err := r.LoadModel(ctx, "m"); err != nil {
					t.Fatal(err)
				}
				if _, err := r.Predict(ctx, job); err != nil {
					t.Errorf("a job once the model is loaded again: %v", err)
				}
			})
		})
	}
}
