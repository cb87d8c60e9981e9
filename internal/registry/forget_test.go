package registry_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/inferd/inferd/internal/registry"
)

// TestForgottenVersionsAreReported: every way the registry drops a version (deleted
// from the repository and then loaded or reloaded, or unloaded) tells its observer,
// once, so that its metrics go; versions that stay are not told.
func TestForgottenVersionsAreReported(t *testing.T) {
	obs := &versionEvents{}
	src := &repoSource{}
	src.set(
		registry.ModelSpec{Name: "m", Versions: versions("v1", "v2", "v3")},
		registry.ModelSpec{Name: "n", Versions: versions("v1")},
	)
	r := newRegistry(t, registry.Options{Sources: []registry.Source{src}, Observer: obs, Rand: rand.New(rand.NewPCG(1, 2))})
	if err := r.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Load(context.Background())

	src.set(registry.ModelSpec{Name: "m", Versions: versions("v1")}, registry.ModelSpec{Name: "n", Versions: versions("v1")})
	if err := r.LoadModel(context.Background(), "m"); err != nil { // v2 and v3 are gone from disk
		t.Fatal(err)
	}
	if err := r.UnloadModel(context.Background(), "n"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		version   string
		forgotten bool
	}{{"m v1", false}, {"m v2", true}, {"m v3", true}, {"n v1", true}}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			events := obs.of(tt.version)
			n := 0
			for _, e := range events {
				if e == "forgotten" {
					n++
				}
			}
			switch {
			case !tt.forgotten && n > 0:
				t.Errorf("a version the registry holds was reported forgotten: %v", events)
			case tt.forgotten && (n != 1 || events[len(events)-1] != "forgotten"):
				t.Errorf("events %v, want one forgotten, last", events)
			}
		})
	}

	t.Run("a reload of a version deleted from disk", func(t *testing.T) {
		src.set(registry.ModelSpec{Name: "m", Versions: versions("v2")}) // v1 deleted, v2 back
		if _, err := r.Reload(context.Background(), "m", "v1"); err == nil {
			t.Fatal("reloading a deleted version succeeded")
		}
		if events := obs.of("m v1"); !slices.Contains(events, "forgotten") {
			t.Errorf("events %v, want forgotten", events)
		}
	})
}
