package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// fakeModel answers every item with its tag, so a result tells which pipeline ran it.
// When gate is set, Predict signals entered and waits for gate to close.
type fakeModel struct {
	tag     string
	gate    chan struct{}
	entered chan struct{}
	closes  atomic.Int32
}

func newModel(tag string) *fakeModel { return &fakeModel{tag: tag} }

func newGatedModel(tag string) *fakeModel {
	return &fakeModel{tag: tag, gate: make(chan struct{}), entered: make(chan struct{}, 16)}
}

func (m *fakeModel) Predict(ctx context.Context, batch []any) ([]any, error) {
	if m.gate != nil {
		m.entered <- struct{}{}
		select {
		case <-m.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([]any, len(batch))
	for i := range out {
		out[i] = m.tag
	}
	return out, nil
}

func (m *fakeModel) Close() error {
	m.closes.Add(1)
	return nil
}

func pipelineOf(m pipeline.Model) *pipeline.Pipeline { return &pipeline.Pipeline{Model: m} }

func loaderOf(m pipeline.Model) registry.Loader {
	return registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return pipelineOf(m), nil })
}

func failingLoader(msg string) registry.Loader {
	return registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return nil, errors.New(msg) })
}

// versions returns version specs whose models are tagged with their version.
func versions(vs ...string) []registry.VersionSpec {
	out := make([]registry.VersionSpec, len(vs))
	for i, v := range vs {
		out[i] = registry.VersionSpec{Version: v, Loader: loaderOf(newModel(v))}
	}
	return out
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newRegistry(t *testing.T, opts registry.Options) *registry.Registry {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	r := registry.New(opts)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// started returns a registry that has discovered and loaded sources.
func started(t *testing.T, sources ...registry.Source) *registry.Registry {
	t.Helper()
	r := newRegistry(t, registry.Options{Sources: sources, Rand: rand.New(rand.NewPCG(1, 2))})
	if err := r.Discover(context.Background()); err != nil {
		t.Fatalf("Discover: %v", err)
	}
	r.Load(context.Background())
	return r
}

var one = []json.RawMessage{json.RawMessage(`1`)}

func predict(t *testing.T, r *registry.Registry, model, version string) registry.Prediction {
	t.Helper()
	p, err := r.Predict(context.Background(), registry.Request{Model: model, Version: version, Items: one})
	if err != nil {
		t.Fatalf("Predict(%q, %q): %v", model, version, err)
	}
	return p
}

// servedBy returns the tag of the model that produced a prediction's first result.
func servedBy(t *testing.T, p registry.Prediction) string {
	t.Helper()
	var tag string
	if len(p.Results) == 0 || json.Unmarshal(p.Results[0], &tag) != nil {
		t.Fatalf("unexpected results %q", p.Results)
	}
	return tag
}

func entry(t *testing.T, r *registry.Registry, name, version string) registry.Entry {
	t.Helper()
	for _, e := range r.List() {
		if e.Name == name && e.Version == version {
			return e
		}
	}
	t.Fatalf("List has no %s %s", name, version)
	return registry.Entry{}
}

// waitFor waits, in a synctest bubble, until every other goroutine is blocked, and
// checks that cond holds by then.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	synctest.Wait()
	if !cond() {
		t.Fatalf("everything blocked before %s", what)
	}
}

// errSource fails discovery.
type errSource struct{}

func (errSource) Models(context.Context) ([]registry.ModelSpec, error) {
	return nil, errors.New("disk on fire")
}

func (errSource) Model(context.Context, string) (registry.ModelSpec, error) {
	return registry.ModelSpec{}, errors.New("disk on fire")
}

func TestDiscoverErrors(t *testing.T) {
	tests := []struct {
		name    string
		sources []registry.Source
		wantIs  error
		wantMsg string
	}{
		{
			name: "duplicate model across sources",
			sources: []registry.Source{
				registry.Fixed{{Name: "m", Versions: versions("v1")}},
				registry.Fixed{{Name: "m", Versions: versions("v2")}},
			},
			wantMsg: `"m"`,
		},
		{
			name: "static rule naming a missing version",
			sources: []registry.Source{registry.Fixed{{
				Name: "m", Rule: registry.Rule{Strategy: registry.Static, Version: "v3"}, Versions: versions("v1", "v2"),
			}}},
			wantIs:  registry.ErrInvalidRule,
			wantMsg: "v3",
		},
		{
			name: "weighted rule naming a missing version",
			sources: []registry.Source{registry.Fixed{{
				Name: "m", Rule: registry.Rule{Strategy: registry.Weighted, Weights: map[string]float64{"v1": 50, "v7": 50}}, Versions: versions("v1"),
			}}},
			wantIs:  registry.ErrInvalidRule,
			wantMsg: "v7",
		},
		{
			name:    "version listed twice",
			sources: []registry.Source{registry.Fixed{{Name: "m", Versions: versions("v1", "v1")}}},
			wantMsg: `"v1"`,
		},
		{
			name:    "source fails",
			sources: []registry.Source{registry.Fixed{{Name: "m", Versions: versions("v1")}}, errSource{}},
			wantMsg: "disk on fire",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistry(t, registry.Options{Sources: tt.sources})
			err := r.Discover(context.Background())
			if err == nil {
				t.Fatal("Discover succeeded, want an error")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Discover = %v, want it to wrap %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("Discover = %q, want it to mention %s", err, tt.wantMsg)
			}
			if r.Ready() {
				t.Error("Ready after a failed Discover")
			}
		})
	}
}

func TestLoadWithAFailingLoader(t *testing.T) {
	src := registry.Fixed{
		{Name: "m", Versions: []registry.VersionSpec{
			{Version: "v1", Loader: loaderOf(newModel("v1"))},
			{Version: "v2", Loader: failingLoader("weights file truncated")},
			{Version: "v3", Loader: loaderOf(newModel("v3"))},
			{Version: "v4", Err: errors.New("config.yaml: bad indentation")},
		}},
		{Name: "other", Versions: versions("v1")},
	}
	r := newRegistry(t, registry.Options{Sources: []registry.Source{src}})
	if r.Ready() {
		t.Fatal("Ready before Discover")
	}
	if err := r.Discover(context.Background()); err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if r.Ready() {
		t.Fatal("Ready before Load")
	}
	if _, err := r.Predict(context.Background(), registry.Request{Model: "m", Version: "v1", Items: one}); !errors.Is(err, registry.ErrLoading) {
		t.Fatalf("Predict before Load = %v, want ErrLoading", err)
	}
	r.Load(context.Background())
	if !r.Ready() {
		t.Fatal("not Ready after Load: a failed version must not hold readiness back")
	}

	tests := []struct {
		version    string
		wantStatus registry.Status
		wantErr    error  // of Predict
		wantMsg    string // in the entry's error and Predict's
	}{
		{"v1", registry.StatusReady, nil, ""},
		{"v2", registry.StatusFailed, registry.ErrUnavailable, "weights file truncated"},
		{"v3", registry.StatusReady, nil, ""},
		{"v4", registry.StatusFailed, registry.ErrUnavailable, "bad indentation"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			e := entry(t, r, "m", tt.version)
			if e.Status != tt.wantStatus {
				t.Errorf("status %q, want %q", e.Status, tt.wantStatus)
			}
			p, err := r.Predict(context.Background(), registry.Request{Model: "m", Version: tt.version, Items: one})
			if tt.wantErr == nil {
				if err != nil || e.Err != nil {
					t.Fatalf("Predict: %v; entry error %v", err, e.Err)
				}
				if got := servedBy(t, p); got != tt.version {
					t.Errorf("served by %q", got)
				}
				return
			}
			if e.Err == nil || !strings.Contains(e.Err.Error(), tt.wantMsg) {
				t.Errorf("entry error %v, want one mentioning %q", e.Err, tt.wantMsg)
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("Predict = %v, want %v mentioning %q", err, tt.wantErr, tt.wantMsg)
			}
		})
	}
	if got := servedBy(t, predict(t, r, "other", "v1")); got != "v1" {
		t.Errorf("other model served by %q", got)
	}
}

func TestReadyWhileASlowLoaderBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release, entered := make(chan struct{}), make(chan struct{})
		slow := registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
			close(entered)
			<-release
			return pipelineOf(newModel("slow")), nil
		})
		src := registry.Fixed{
			{Name: "fast", Versions: versions("v1")},
			{Name: "slow", Versions: []registry.VersionSpec{{Version: "v1", Loader: slow}}},
		}
		r := newRegistry(t, registry.Options{Sources: []registry.Source{src}, LoadConcurrency: 2})
		if r.Ready() {
			t.Fatal("Ready before Discover")
		}
		if err := r.Discover(context.Background()); err != nil {
			t.Fatalf("Discover: %v", err)
		}
		loaded := make(chan struct{})
		go func() { r.Load(context.Background()); close(loaded) }()
		<-entered
		waitFor(t, "the fast model to load", func() bool { return entry(t, r, "fast", "v1").Status == registry.StatusReady })

		if r.Ready() {
			t.Error("Ready while a loader blocks")
		}
		if _, err := r.Predict(context.Background(), registry.Request{Model: "slow", Version: "", Items: one}); !errors.Is(err, registry.ErrLoading) {
			t.Errorf("Predict while loading = %v, want ErrLoading", err)
		}
		if e := entry(t, r, "slow", "v1"); e.Status != registry.StatusLoading {
			t.Errorf("slow status %q while loading", e.Status)
		}
		predict(t, r, "fast", "v1")

		close(release)
		<-loaded
		if !r.Ready() {
			t.Error("not Ready after the slow loader finished")
		}
		predict(t, r, "slow", "v1")
	})
}

func TestNotFound(t *testing.T) {
	r := started(t, registry.Fixed{{Name: "m", Versions: versions("v1", "v2")}})
	tests := []struct {
		name, model, version string
		want                 error
	}{
		{"unknown model", "nope", "", registry.ErrModelNotFound},
		{"unknown model with a version", "nope", "v1", registry.ErrModelNotFound},
		{"unknown version", "m", "v3", registry.ErrVersionNotFound},
		{"version of another case", "m", "V1", registry.ErrVersionNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := r.Resolve(tt.model, tt.version); !errors.Is(err, tt.want) {
				t.Errorf("Resolve = %v, want %v", err, tt.want)
			}
			if _, err := r.Predict(context.Background(), registry.Request{Model: tt.model, Version: tt.version, Items: one}); !errors.Is(err, tt.want) {
				t.Errorf("Predict = %v, want %v", err, tt.want)
			}
			if _, err := r.Reload(context.Background(), tt.model, tt.version+"x"); !errors.Is(err, tt.want) {
				t.Errorf("Reload = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := r.Describe("nope"); !errors.Is(err, registry.ErrModelNotFound) {
		t.Errorf("Describe = %v, want ErrModelNotFound", err)
	}
}

func TestPredictRoutesByRule(t *testing.T) {
	tests := []struct {
		name     string
		rule     registry.Rule
		versions []string // in the order the source lists them
		want     string
	}{
		{"no rule picks the latest", registry.Rule{}, []string{"v9", "v10", "v2"}, "v10"},
		{"latest in dotted order", registry.Rule{Strategy: registry.Latest}, []string{"1.10.0", "1.9.3", "1.2"}, "1.10.0"},
		{"static", registry.Rule{Strategy: registry.Static, Version: "v2"}, []string{"v9", "v10", "v2"}, "v2"},
		{"weighted all on one", registry.Rule{Strategy: registry.Weighted, Weights: map[string]float64{"v9": 100}}, []string{"v9", "v10"}, "v9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := started(t, registry.Fixed{{Name: "m", Rule: tt.rule, Versions: versions(tt.versions...)}})
			if got, err := r.Resolve("m", ""); err != nil || got != tt.want {
				t.Errorf("Resolve = %q, %v; want %q", got, err, tt.want)
			}
			p := predict(t, r, "m", "")
			if p.Model != "m" || p.Version != tt.want || servedBy(t, p) != tt.want {
				t.Errorf("Predict reported %s %s, served by %s; want %s", p.Model, p.Version, servedBy(t, p), tt.want)
			}
			for _, v := range tt.versions { // a named version overrides the rule
				if p := predict(t, r, "m", v); p.Version != v || servedBy(t, p) != v {
					t.Errorf("Predict(%q) reported %s, served by %s", v, p.Version, servedBy(t, p))
				}
			}
		})
	}
}

func TestPredictWeightedReportsTheVersionThatRan(t *testing.T) {
	rule := registry.Rule{Strategy: registry.Weighted, Weights: map[string]float64{"v1": 70, "v2": 30}}
	r := started(t, registry.Fixed{{Name: "m", Rule: rule, Versions: versions("v1", "v2")}})
	counts := map[string]int{}
	const n = 2000
	for range n {
		p := predict(t, r, "m", "")
		if got := servedBy(t, p); got != p.Version {
			t.Fatalf("reported %s, served by %s", p.Version, got)
		}
		counts[p.Version]++
	}
	if share := 100 * float64(counts["v1"]) / n; share < 65 || share > 75 {
		t.Errorf("v1 got %.1f%% of %d requests, want about 70%%", share, n)
	}
}

func TestPredictBatchIsOneCall(t *testing.T) {
	var calls, size atomic.Int32
	m := &funcModel{predict: func(_ context.Context, b []any) ([]any, error) {
		calls.Add(1)
		size.Store(int32(len(b)))
		return b, nil
	}}
	r := started(t, registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: loaderOf(m)}}}})
	items := []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`"two"`), json.RawMessage(`null`)}
	p, err := r.Predict(context.Background(), registry.Request{Model: "m", Version: "", Items: items})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || size.Load() != 3 {
		t.Errorf("model called %d times with %d items, want once with 3", calls.Load(), size.Load())
	}
	for i := range items {
		if string(p.Results[i]) != string(items[i]) {
			t.Errorf("result %d = %s, want %s", i, p.Results[i], items[i])
		}
	}
}

type funcModel struct {
	predict func(context.Context, []any) ([]any, error)
	closes  atomic.Int32
}

func (m *funcModel) Predict(ctx context.Context, b []any) ([]any, error) { return m.predict(ctx, b) }
func (m *funcModel) Close() error                                        { m.closes.Add(1); return nil }

// builds is a loader that makes a new model on every load, so a test can tell the
// pipelines of successive reloads apart and check each was closed.
type builds struct {
	mu     sync.Mutex
	models []*fakeModel
	gated  func(n int) bool  // whether build n (from 0) blocks its requests
	fail   func(n int) error // makes build n fail
	hook   func(n int)       // runs inside build n
}

func (b *builds) Load(context.Context) (*pipeline.Pipeline, error) {
	b.mu.Lock()
	n := len(b.models)
	b.mu.Unlock()
	if b.hook != nil {
		b.hook(n)
	}
	if b.fail != nil {
		if err := b.fail(n); err != nil {
			return nil, err
		}
	}
	tag := fmt.Sprintf("build%d", n)
	m := newModel(tag)
	if b.gated != nil && b.gated(n) {
		m = newGatedModel(tag)
	}
	b.mu.Lock()
	b.models = append(b.models, m)
	b.mu.Unlock()
	return pipelineOf(m), nil
}

func (b *builds) model(t *testing.T, n int) *fakeModel {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if n >= len(b.models) {
		t.Fatalf("build %d never happened (%d builds)", n, len(b.models))
	}
	return b.models[n]
}

func (b *builds) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.models)
}

func TestReloadDrainsInFlightRequestsBeforeClosing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &builds{gated: func(n int) bool { return n == 0 }}
		r := started(t, registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: b}}}})
		old := b.model(t, 0)

		type result struct {
			p   registry.Prediction
			err error
		}
		done := make(chan result, 1)
		go func() {
			p, err := r.Predict(context.Background(), registry.Request{Model: "m", Version: "v1", Items: one})
			done <- result{p, err}
		}()
		<-old.entered

		if _, err := r.Reload(context.Background(), "m", "v1"); err != nil {
			t.Fatalf("Reload: %v", err)
		}
		if got := servedBy(t, predict(t, r, "m", "v1")); got != "build1" {
			t.Errorf("after the reload a new request ran on %s, want build1", got)
		}
		synctest.Wait() // a premature Close would have happened by now
		if n := old.closes.Load(); n != 0 {
			t.Fatalf("the old pipeline was closed %d times while a request was in flight", n)
		}

		close(old.gate)
		res := <-done
		if res.err != nil || servedBy(t, res.p) != "build0" {
			t.Fatalf("in-flight request: %v, %v; want it to finish on build0", res.p, res.err)
		}
		waitFor(t, "the old pipeline to close", func() bool { return old.closes.Load() > 0 })
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		for i := range b.count() {
			if n := b.model(t, i).closes.Load(); n != 1 {
				t.Errorf("build %d closed %d times, want once", i, n)
			}
		}
	})
}

func TestFailedReloadKeepsTheOldPipeline(t *testing.T) {
	tests := []struct {
		name string
		fail func(n int) error
		hook func(n int)
		want string
	}{
		{"loader error", func(n int) error {
			if n > 0 {
				return errors.New("checksum mismatch")
			}
			return nil
		}, nil, "checksum mismatch"},
		{"loader panic", nil, func(n int) {
			if n > 0 {
				panic("nil map write in the loader")
			}
		}, "nil map write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builds{fail: tt.fail, hook: tt.hook}
			r := started(t, registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: b}}}})
			_, err := r.Reload(context.Background(), "m", "v1")
			if !errors.Is(err, registry.ErrReloadFailed) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Reload = %v, want ErrReloadFailed mentioning %q", err, tt.want)
			}
			if got := servedBy(t, predict(t, r, "m", "v1")); got != "build0" {
				t.Errorf("served by %s after a failed reload, want build0", got)
			}
			if e := entry(t, r, "m", "v1"); e.Status != registry.StatusReady || e.Err != nil {
				t.Errorf("entry %s, %v after a failed reload", e.Status, e.Err)
			}
			if n := b.model(t, 0).closes.Load(); n != 0 {
				t.Errorf("the serving pipeline was closed %d times", n)
			}
		})
	}
}

// A source that describes a version as broken on reload keeps the old pipeline too.
func TestReloadOfAVersionTheSourceNowRejects(t *testing.T) {
	good := newModel("good")
	src := &changingSource{first: []registry.ModelSpec{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: loaderOf(good)}}}}}
	src.later = []registry.ModelSpec{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Err: errors.New("config.yaml: unknown step")}}}}
	r := started(t, src)
	if _, err := r.Reload(context.Background(), "m", "v1"); !errors.Is(err, registry.ErrReloadFailed) || !strings.Contains(err.Error(), "unknown step") {
		t.Fatalf("Reload = %v", err)
	}
	if got := servedBy(t, predict(t, r, "m", "v1")); got != "good" {
		t.Errorf("served by %s", got)
	}
}

// changingSource lists first at discovery and later on every re-read, like a model
// repository someone has added files to.
type changingSource struct {
	first, later []registry.ModelSpec
}

func (s *changingSource) Models(context.Context) ([]registry.ModelSpec, error) { return s.first, nil }

func (s *changingSource) Model(ctx context.Context, name string) (registry.ModelSpec, error) {
	return registry.Fixed(s.later).Model(ctx, name)
}

func TestReloadMakesANewVersionServable(t *testing.T) {
	tests := []struct {
		name, model, version string
		before               error // of Predict before the reload
	}{
		{"new version of a known model", "m", "v2", registry.ErrVersionNotFound},
		{"new model", "n", "v1", registry.ErrModelNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &changingSource{
				first: []registry.ModelSpec{{Name: "m", Versions: versions("v1")}},
				later: []registry.ModelSpec{
					{Name: "m", Versions: versions("v1", "v2")},
					{Name: "n", Versions: versions("v1")},
				},
			}
			r := started(t, src)
			if _, err := r.Predict(context.Background(), registry.Request{Model: tt.model, Version: tt.version, Items: one}); !errors.Is(err, tt.before) {
				t.Fatalf("Predict before the reload = %v, want %v", err, tt.before)
			}
			got, err := r.Reload(context.Background(), tt.model, tt.version)
			if err != nil {
				t.Fatalf("Reload: %v", err)
			}
			if got.Name != tt.model || got.Version != tt.version || got.LoadedAt.IsZero() {
				t.Errorf("Reload = %+v", got)
			}
			if p := predict(t, r, tt.model, tt.version); servedBy(t, p) != tt.version {
				t.Errorf("served by %s", servedBy(t, p))
			}
			if p := predict(t, r, tt.model, ""); p.Version != tt.version {
				t.Errorf("version-less request went to %s, want the new latest %s", p.Version, tt.version)
			}
			if e := entry(t, r, tt.model, tt.version); e.Status != registry.StatusReady {
				t.Errorf("listed as %s", e.Status)
			}
			if !r.Ready() {
				t.Error("not Ready after the reload")
			}
		})
	}
}

func TestLoaderFailuresAreReportedNotFatal(t *testing.T) {
	tests := []struct {
		name   string
		loader registry.Loader
		want   string
	}{
		{"panic", registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { panic("runtime exploded") }), "runtime exploded"},
		{"nil pipeline", registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return nil, nil }), "no model"},
		{"pipeline without a model", registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return &pipeline.Pipeline{}, nil }), "no model"},
		{"no loader", nil, "no loader"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := started(t, registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{
				{Version: "v1", Loader: loaderOf(newModel("v1"))},
				{Version: "v2", Loader: tt.loader},
			}}})
			if !r.Ready() {
				t.Error("not Ready after Load")
			}
			e := entry(t, r, "m", "v2")
			if e.Status != registry.StatusFailed || e.Err == nil || !strings.Contains(e.Err.Error(), tt.want) {
				t.Errorf("entry %s, %v; want failed mentioning %q", e.Status, e.Err, tt.want)
			}
			if _, err := r.Predict(context.Background(), registry.Request{Model: "m", Version: "v2", Items: one}); !errors.Is(err, registry.ErrUnavailable) {
				t.Errorf("Predict = %v, want ErrUnavailable", err)
			}
			predict(t, r, "m", "v1")
		})
	}
}

func TestMemoryOfALoad(t *testing.T) {
	const size = 32 << 20
	var keep []byte
	big := registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
		keep = make([]byte, size)
		for i := 0; i < len(keep); i += 4096 { // touch every page so it is resident
			keep[i] = 1
		}
		return &pipeline.Pipeline{Model: &weights{b: keep}}, nil
	})
	r := newRegistry(t, registry.Options{
		Sources:         []registry.Source{registry.Fixed{{Name: "big", Versions: []registry.VersionSpec{{Version: "v1", Loader: big}}}}},
		LoadConcurrency: 1,
	})
	if err := r.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Load(context.Background())
	mem := entry(t, r, "big", "v1").Memory
	if mem.Bytes < size*95/100 {
		t.Errorf("Bytes = %d, want at least about %d", mem.Bytes, size)
	}
	if mem.HeapDelta <= 0 {
		t.Errorf("HeapDelta = %d, want > 0", mem.HeapDelta)
	}
	if !mem.Exclusive {
		t.Error("Exclusive = false for a load that ran alone")
	}
	if mem.MeasuredAt.IsZero() {
		t.Error("MeasuredAt not set")
	}
	if pm := registry.CurrentProcessMemory(); pm.HeapAlloc < size || pm.Goroutines == 0 {
		t.Errorf("process memory %+v, want the load's heap in it", pm)
	}
}

type weights struct{ b []byte }

func (w *weights) Predict(_ context.Context, batch []any) ([]any, error) { return batch, nil }
func (w *weights) Close() error                                          { return nil }

func TestCloseClosesEveryPipelineOnce(t *testing.T) {
	models := []*fakeModel{newModel("a"), newModel("b"), newModel("c")}
	r := registry.New(registry.Options{Logger: quiet, Sources: []registry.Source{registry.Fixed{
		{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: loaderOf(models[0])}, {Version: "v2", Loader: loaderOf(models[1])}}},
		{Name: "n", Versions: []registry.VersionSpec{{Version: "v1", Loader: loaderOf(models[2])}}},
	}}})
	if err := r.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Load(context.Background())
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		if n := m.closes.Load(); n != 1 {
			t.Errorf("%s closed %d times, want once", m.tag, n)
		}
	}
}

func TestListOrder(t *testing.T) {
	r := started(t,
		registry.Fixed{{Name: "zeta", Versions: versions("v10", "v9")}},
		registry.Fixed{{Name: "alpha", Versions: versions("1.10", "1.9", "2")}},
	)
	var got []string
	for _, e := range r.List() {
		got = append(got, e.Name+" "+e.Version)
	}
	want := []string{"alpha 1.9", "alpha 1.10", "alpha 2", "zeta v9", "zeta v10"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}

// A reload that lands before the initial load reaches its version must not leave two
// pipelines for it, one of which nothing would ever close.
func TestReloadDuringWarmUp(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	first := newModel("first")
	slow := registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
		close(entered)
		<-release
		return pipelineOf(first), nil
	})
	b := &builds{}
	r := newRegistry(t, registry.Options{
		Sources: []registry.Source{registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{
			{Version: "v1", Loader: slow},
			{Version: "v2", Loader: b},
		}}}},
		LoadConcurrency: 1, // v2 waits behind v1
	})
	if err := r.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	loaded := make(chan struct{})
	go func() { r.Load(context.Background()); close(loaded) }()
	<-entered

	if _, err := r.Reload(context.Background(), "m", "v2"); err != nil {
		t.Fatalf("Reload during warm-up: %v", err)
	}
	if got := servedBy(t, predict(t, r, "m", "v2")); got != "build0" {
		t.Errorf("served by %s", got)
	}
	if r.Ready() {
		t.Error("Ready while v1 still loads")
	}
	close(release)
	<-loaded
	if !r.Ready() {
		t.Fatal("not Ready after Load")
	}
	predict(t, r, "m", "v2")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range b.count() {
		if n := b.model(t, i).closes.Load(); n != 1 {
			t.Errorf("v2 build %d closed %d times, want once", i, n)
		}
	}
	if n := first.closes.Load(); n != 1 {
		t.Errorf("v1 closed %d times, want once", n)
	}
}
