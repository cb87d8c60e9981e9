package registry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/inferd/inferd/internal/registry"
)

// TestRefresh: a refresh after the source changed loads what it added, rebuilds only
// the versions named changed (the old pipeline serving on when the rebuild fails),
// drops what it removed, and leaves alone a model an operator unloaded until the
// operator loads it again.
func TestRefresh(t *testing.T) {
	ctx := context.Background()
	v1 := &builds{}
	src := &repoSource{}
	src.set(
		registry.ModelSpec{Name: "m", Versions: []registry.VersionSpec{{Version: "v1", Loader: v1}}},
		registry.ModelSpec{Name: "n", Versions: versions("v1")},
	)
	r := started(t, src)

	src.set(
		registry.ModelSpec{Name: "m", Versions: append([]registry.VersionSpec{{Version: "v1", Loader: v1}}, versions("v2")...)},
		registry.ModelSpec{Name: "n", Versions: versions("v1")},
	)
	if ok, err := r.Refresh(ctx, "m", nil); !ok || err != nil {
		t.Fatalf("Refresh = %v, %v", ok, err)
	}
	if p := predict(t, r, "m", "v2"); servedBy(t, p) != "v2" {
		t.Errorf("the added version served by %s", servedBy(t, p))
	}
	if v1.count() != 1 {
		t.Errorf("v1 was built %d times: a version not named changed is left as it is", v1.count())
	}

	t.Run("a changed version is rebuilt", func(t *testing.T) {
		if ok, err := r.Refresh(ctx, "m", []string{"v1"}); !ok || err != nil {
			t.Fatalf("Refresh = %v, %v", ok, err)
		}
		if p := predict(t, r, "m", "v1"); v1.count() != 2 || servedBy(t, p) != "build1" {
			t.Errorf("after %d builds v1 is served by %s, want build1", v1.count(), servedBy(t, p))
		}
	})
	t.Run("a rebuild that fails leaves the old pipeline serving", func(t *testing.T) {
		v1.fail = func(int) error { return errors.New("bad weights") }
		defer func() { v1.fail = nil }()
		_, err := r.Refresh(ctx, "m", []string{"v1"})
		if !errors.Is(err, registry.ErrReloadFailed) {
			t.Fatalf("Refresh = %v, want ErrReloadFailed", err)
		}
		if p := predict(t, r, "m", "v1"); servedBy(t, p) != "build1" {
			t.Errorf("served by %s, want the old build1", servedBy(t, p))
		}
		if e := entry(t, r, "m", "v1"); e.Status != registry.StatusReady || e.LoadErr == nil {
			t.Errorf("entry %s, load error %v: want ready with the failure", e.Status, e.LoadErr)
		}
	})
	t.Run("a removed version is dropped", func(t *testing.T) {
		src.set(registry.ModelSpec{Name: "m", Versions: versions("v2")}, registry.ModelSpec{Name: "n", Versions: versions("v1")})
		if ok, err := r.Refresh(ctx, "m", nil); !ok || err != nil {
			t.Fatalf("Refresh = %v, %v", ok, err)
		}
		wantStates(t, r, map[string]registry.Status{"m v2": registry.StatusReady, "n v1": registry.StatusReady})
	})
	t.Run("an unloaded model stays unloaded", func(t *testing.T) {
		if err := r.UnloadModel(ctx, "n"); err != nil {
			t.Fatal(err)
		}
		src.set(registry.ModelSpec{Name: "m", Versions: versions("v2")}, registry.ModelSpec{Name: "n", Versions: versions("v1", "v2")})
		if ok, err := r.Refresh(ctx, "n", []string{"v1"}); ok || err != nil {
			t.Fatalf("Refresh of an unloaded model = %v, %v; want false, nil", ok, err)
		}
		wantStates(t, r, map[string]registry.Status{"m v2": registry.StatusReady, "n v1": registry.StatusNotLoaded, "n v2": registry.StatusNotLoaded})
		if err := r.LoadModel(ctx, "n"); err != nil {
			t.Fatal(err)
		}
		src.set(registry.ModelSpec{Name: "m", Versions: versions("v2")}, registry.ModelSpec{Name: "n", Versions: versions("v2")})
		if ok, err := r.Refresh(ctx, "n", nil); !ok || err != nil {
			t.Fatalf("Refresh after the operator's load = %v, %v", ok, err)
		}
		wantStates(t, r, map[string]registry.Status{"m v2": registry.StatusReady, "n v2": registry.StatusReady})
	})
	t.Run("a model gone from the source is dropped", func(t *testing.T) {
		src.set(registry.ModelSpec{Name: "n", Versions: versions("v2")})
		if ok, err := r.Refresh(ctx, "m", nil); !ok || err != nil {
			t.Fatalf("Refresh = %v, %v", ok, err)
		}
		wantStates(t, r, map[string]registry.Status{"n v2": registry.StatusReady})
	})
}

// TestRefused: a version whose latest content the source refused serves what it took
// before and shows the refusal as its load error; one it holds nothing of is listed
// failed with it. Neither holds readiness back, and the refusal goes once the source
// no longer says it.
func TestRefused(t *testing.T) {
	ctx := context.Background()
	stale := errors.New("m/v1: model.onnx: digest mismatch")
	corrupt := errors.New("m/v2: model.onnx: digest mismatch")
	src := &repoSource{}
	src.set(registry.ModelSpec{Name: "m", Versions: []registry.VersionSpec{
		{Version: "v1", Loader: loaderOf(newModel("v1")), Refused: stale},
		{Version: "v2", Refused: corrupt},
	}})
	r := started(t, src)
	if p := predict(t, r, "m", "v1"); servedBy(t, p) != "v1" {
		t.Errorf("v1 served by %s", servedBy(t, p))
	}
	if e := entry(t, r, "m", "v1"); e.Status != registry.StatusReady || !errors.Is(e.LoadErr, stale) {
		t.Errorf("v1: %s, load error %v: want ready, with the refusal", e.Status, e.LoadErr)
	}
	if e := entry(t, r, "m", "v2"); e.Status != registry.StatusFailed || !errors.Is(e.Err, corrupt) || e.AtStart {
		t.Errorf("v2: %s, %v, at start %v: want failed with the refusal, not at start", e.Status, e.Err, e.AtStart)
	}
	if r.FailedAtStart() {
		t.Error("a refusal holds readiness back")
	}

	src.set(registry.ModelSpec{Name: "m", Versions: append([]registry.VersionSpec{{Version: "v1", Loader: loaderOf(newModel("v1"))}}, versions("v2")...)})
	if _, err := r.Refresh(ctx, "m", nil); err != nil {
		t.Fatal(err)
	}
	if e := entry(t, r, "m", "v1"); e.LoadErr != nil {
		t.Errorf("v1 still shows %v once the source took its content", e.LoadErr)
	}
	if p := predict(t, r, "m", "v2"); servedBy(t, p) != "v2" {
		t.Errorf("v2, whole at last, served by %s", servedBy(t, p))
	}
}
