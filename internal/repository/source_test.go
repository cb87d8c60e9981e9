package repository_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
)

// irisYAML is a working config for an iris-shaped model (input [N,4] float32,
// output logits [N,3]).
const irisYAML = `description: test iris
preprocess:
  - to_tensor:
      features: [sepal_length, sepal_width, petal_length, petal_width]
  - standardize:
      mean: [5.8, 3.0, 3.7, 1.2]
      std: [0.8, 0.4, 1.7, 0.7]
postprocess:
  - softmax
  - top_k: {k: 2, labels: [setosa, versicolor, virginica]}
`

// backends is the catalogue internal/app hands the repository, with rt for onnx.
func backends(rt *onnx.Runtime) backend.Catalogue {
	return backend.Catalogue{onnx.NewBackend(rt), xgboost.Backend{}, echo.Backend{}}
}

// unloaded is backends for tests that only discover: its ONNX Runtime would load the
// library on the first model opened, and none is.
func unloaded() backend.Catalogue { return backends(onnx.New(onnx.Options{})) }

func irisONNX() string {
	w := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}
	return string(onnxtest.Linear(-1, w, []float32{0, 0, 0}).Encode())
}

// repo writes files (path relative to the repository -> content) into a new
// repository directory and returns it.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "models")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestModelsListing(t *testing.T) {
	ctx := context.Background()
	t.Run("missing directory", func(t *testing.T) {
		specs, err := repository.New(repository.Options{Dir: filepath.Join(t.TempDir(), "nope")}).Models(ctx)
		if err != nil || len(specs) != 0 {
			t.Fatalf("Models = %v, %v; want none and no error", specs, err)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		specs, err := repository.New(repository.Options{Dir: t.TempDir()}).Models(ctx)
		if err != nil || len(specs) != 0 {
			t.Fatalf("Models = %v, %v; want none and no error", specs, err)
		}
	})
	t.Run("skipped entries", func(t *testing.T) {
		dir := repo(t, map[string]string{
			"README.md":                 "not a model",
			".hidden/v1/model.yaml":     irisYAML,
			"_drafts/v1/model.yaml":     irisYAML,
			"noversions/routing.yaml":   "strategy: latest\n",
			"iris/v1/model.yaml":        irisYAML,
			"iris/v1/model.onnx":        irisONNX(),
			"iris/notes.txt":            "ignored",
			"iris/.cache/whatever.yaml": "ignored",
		})
		specs, err := repository.New(repository.Options{Dir: dir, Backends: unloaded()}).Models(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(specs) != 1 || specs[0].Name != "iris" || len(specs[0].Versions) != 1 || specs[0].Versions[0].Err != nil {
			t.Fatalf("Models = %+v", specs)
		}
	})
	t.Run("echo is reserved", func(t *testing.T) {
		dir := repo(t, map[string]string{"echo/v1/model.yaml": irisYAML})
		_, err := repository.New(repository.Options{Dir: dir, Backends: unloaded(), Reserved: []string{"echo"}}).Models(ctx)
		want := filepath.Join(dir, "echo") + `: the name "echo" belongs to a built-in model; rename the directory`
		if !errors.Is(err, repository.ErrReservedName) || !strings.HasSuffix(err.Error(), want) {
			t.Fatalf("error = %v, want ErrReservedName ending in %q", err, want)
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		for _, name := range []string{"nope", "../models", ".hidden", "my model"} {
			_, err := repository.New(repository.Options{Dir: t.TempDir()}).Model(ctx, name)
			if !errors.Is(err, registry.ErrModelNotFound) {
				t.Errorf("Model(%q) error = %v, want ErrModelNotFound", name, err)
			}
		}
	})
	t.Run("bad model name", func(t *testing.T) {
		dir := repo(t, map[string]string{"my model/v1/model.yaml": irisYAML})
		_, err := repository.New(repository.Options{Dir: dir}).Models(ctx)
		if !errors.Is(err, repository.ErrInvalidConfig) {
			t.Fatalf("error = %v, want ErrInvalidConfig", err)
		}
	})
}

// TestBrokenVersion: one broken version among good ones is listed with its error;
// the others load.
func TestBrokenVersion(t *testing.T) {
	dir := repo(t, map[string]string{
		"iris/v1/model.yaml": irisYAML,
		"iris/v1/model.onnx": irisONNX(),
		"iris/v2/model.yaml": strings.Replace(irisYAML, "softmax", "softmaxx", 1),
		"iris/v2/model.onnx": irisONNX(),
		"iris/v3/model.onnx": irisONNX(),
		"iris/v4/model.yaml": irisYAML,
		"iris/v4/model.onnx": irisONNX(),
		"iris/routing.yaml":  "strategy: static\nversion: v1\n",
	})
	src := repository.New(repository.Options{Dir: dir, Backends: backends(onnxtest.Runtime(t))})
	specs, err := src.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 1 || len(specs[0].Versions) != 4 {
		t.Fatalf("Models = %+v", specs)
	}
	if want := (registry.Rule{Strategy: registry.Static, Version: "v1"}); specs[0].Rule.Strategy != want.Strategy || specs[0].Rule.Version != want.Version {
		t.Errorf("rule = %+v", specs[0].Rule)
	}
	wantErr := map[string]string{
		"v2": filepath.Join(dir, "iris/v2/model.yaml") + `: postprocess[0]: unknown step "softmaxx" (postprocess steps: argmax, label_map, round, softmax, squeeze, threshold, top_k)`,
		"v3": filepath.Join(dir, "iris/v3/model.yaml") + ": missing: every version directory needs one",
	}
	for _, v := range specs[0].Versions {
		t.Run(v.Version, func(t *testing.T) {
			if want, broken := wantErr[v.Version]; broken {
				if v.Err == nil || v.Err.Error() != want || !errors.Is(v.Err, repository.ErrInvalidConfig) {
					t.Fatalf("Err = %v\nwant  %s", v.Err, want)
				}
				if v.Loader != nil {
					t.Error("a broken version has a loader")
				}
				return
			}
			if v.Err != nil {
				t.Fatal(v.Err)
			}
			p, err := v.Loader.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			p.Close()
		})
	}

	// Through the registry: the good versions serve, the broken ones are failed with
	// their reason, and readiness is not held back by them.
	reg := registry.New(registry.Options{Sources: []registry.Source{src}, Logger: slog.New(slog.DiscardHandler)})
	if err := reg.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	reg.Load(context.Background())
	defer reg.Close()
	if !reg.Ready() {
		t.Error("not ready after Load")
	}
	for _, e := range reg.List() {
		_, broken := wantErr[e.Version]
		if broken != (e.Status == registry.StatusFailed) {
			t.Errorf("%s %s: status %s, err %v", e.Name, e.Version, e.Status, e.Err)
		}
	}
}

func TestBadRoutingRule(t *testing.T) {
	tests := []struct {
		name, rule, want string
	}{
		{"unknown field", "strategy: static\nversoin: v1\n", "routing.yaml: versoin: unknown field (fields: strategy, version, weights)"},
		{"unknown version", "strategy: static\nversion: v9\n", `routing.yaml: invalid routing rule: static version "v9" is not one of [v1]`},
		{"bad weights", "strategy: weighted\nweights: {v1: lots}\n", `routing.yaml: weights.v1: expected a number, got the string "lots"`},
		{"syntax", "strategy: [static\n", "routing.yaml: line 1: did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := repo(t, map[string]string{
				"iris/v1/model.yaml": irisYAML,
				"iris/v1/model.onnx": irisONNX(),
				"iris/routing.yaml":  tt.rule,
			})
			spec, err := repository.New(repository.Options{Dir: dir, Backends: unloaded()}).Model(context.Background(), "iris")
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, "iris", tt.want)
			if v := spec.Versions[0]; v.Err == nil || v.Err.Error() != want {
				t.Fatalf("Err = %v\nwant  %s", v.Err, want)
			}
		})
	}
}
