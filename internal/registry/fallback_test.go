package registry_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/registry"
)

// versionEvents records what the registry reports per version.
type versionEvents struct {
	registry.NopObserver
	mu     sync.Mutex
	events map[string][]string // "model version" -> events in order
}

type versionEventsOf struct {
	o   *versionEvents
	key string
}

func (o *versionEvents) Version(model, version string) registry.VersionObserver {
	return versionEventsOf{o, model + " " + version}
}

func (o *versionEvents) of(key string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.events[key])
}

func (v versionEventsOf) add(e string) {
	v.o.mu.Lock()
	defer v.o.mu.Unlock()
	if v.o.events == nil {
		v.o.events = map[string][]string{}
	}
	v.o.events[v.key] = append(v.o.events[v.key], e)
}

func (v versionEventsOf) State(s registry.Status) { v.add(string(s)) }
func (v versionEventsOf) LoadFailed()             { v.add("load_failed") }
func (v versionEventsOf) RoutedAway()             { v.add("routed_away") }
func (v versionEventsOf) Begin()                  { v.add("begin") }
func (v versionEventsOf) End(time.Duration)       { v.add("end") }
func (v versionEventsOf) Forgotten()              { v.add("forgotten") }

func TestRoutingFallsBackFromAFailedVersion(t *testing.T) {
	weighted := func(w map[string]float64) registry.Rule {
		return registry.Rule{Strategy: registry.Weighted, Weights: w}
	}
	bad := registry.VersionSpec{Version: "v3", Loader: failingLoader("weights file truncated")}
	tests := []struct {
		name     string
		rule     registry.Rule
		specs    []registry.VersionSpec
		want     map[string]bool // versions that may serve a request without a version
		wantErr  error           // instead, when no version of the rule can serve
		fallback bool            // whether v3's fallbacks are counted
	}{
		{"latest skips the failed highest", registry.Rule{}, append(versions("v1", "v2"), bad), map[string]bool{"v2": true}, nil, true},
		{"weighted skips the failed canary", weighted(map[string]float64{"v1": 60, "v2": 30, "v3": 10}), append(versions("v1", "v2"), bad),
			map[string]bool{"v1": true, "v2": true}, nil, true},
		{"weighted keeps the failed one when no other weighted version serves", weighted(map[string]float64{"v2": 0, "v3": 100}), append(versions("v1", "v2"), bad),
			nil, registry.ErrUnavailable, false},
		{"static keeps its version", registry.Rule{Strategy: registry.Static, Version: "v3"}, append(versions("v1", "v2"), bad),
			nil, registry.ErrUnavailable, false},
		{"latest with nothing else ready", registry.Rule{}, []registry.VersionSpec{bad}, nil, registry.ErrUnavailable, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := &versionEvents{}
			r := newRegistry(t, registry.Options{Observer: obs, Rand: rand.New(rand.NewPCG(3, 4)),
				Sources: []registry.Source{registry.Fixed{{Name: "m", Rule: tt.rule, Versions: tt.specs}}}})
			if err := r.Discover(context.Background()); err != nil {
				t.Fatal(err)
			}
			r.Load(context.Background())
			served := map[string]int{}
			for range 200 {
				p, err := r.Predict(context.Background(), registry.Request{Model: "m", Items: one})
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("Predict = %v, want %v", err, tt.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Predict: %v", err)
				}
				if !tt.want[p.Version] || servedBy(t, p) != p.Version {
					t.Fatalf("served by %s (reported %s), want one of %v", servedBy(t, p), p.Version, tt.want)
				}
				served[p.Version]++
			}
			if len(tt.want) > 1 && len(served) != len(tt.want) {
				t.Errorf("served %v: every ready version of the rule should get some", served)
			}
			away := 0
			for _, e := range obs.of("m v3") {
				if e == "routed_away" {
					away++
				}
			}
			if tt.fallback != (away > 0) {
				t.Errorf("v3 counted %d fallbacks; want some: %v", away, tt.fallback)
			}
		})
	}
}

func TestVersionObserverSeesStatesAndRequests(t *testing.T) {
	obs := &versionEvents{}
	r := newRegistry(t, registry.Options{Observer: obs, Sources: []registry.Source{registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{
		{Version: "v1", Loader: loaderOf(newModel("v1"))},
		{Version: "v2", Loader: failingLoader("weights file truncated")},
		{Version: "v3", Err: errors.New("model.yaml: bad indentation")},
	}}}}})
	if err := r.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Load(context.Background())
	predict(t, r, "m", "v1")
	if _, err := r.Reload(context.Background(), "m", "v1"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		version string
		want    []string
	}{
		{"v1", []string{"loading", "ready", "begin", "end", "ready"}},
		{"v2", []string{"loading", "load_failed", "failed"}},
		{"v3", []string{"failed", "load_failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			if got := obs.of("m " + tt.version); !slices.Equal(got, tt.want) {
				t.Errorf("events %v, want %v", got, tt.want)
			}
		})
	}
	var failed []string
	for _, e := range r.Failed() {
		failed = append(failed, e.Name+" "+e.Version)
	}
	if want := []string{"m v2", "m v3"}; !slices.Equal(failed, want) {
		t.Errorf("Failed() = %v, want %v", failed, want)
	}
}
