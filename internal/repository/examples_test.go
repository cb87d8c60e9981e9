package repository_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
)

// examples are inputs and the outputs numpy computed for them when
// tools/build-models.py built the models.
type examples map[string]map[string]struct {
	Items   []json.RawMessage `json:"items"`
	Results []any             `json:"results"`
	// Raw are the results before the pipeline's round step.
	Raw []any `json:"raw"`
	// Batch, when present, are the results of the items sent as one batch, where
	// they differ from the results of each alone (a graph's condition decides a
	// request's rows together).
	Batch []any `json:"batch"`
}

func readExamples(t testing.TB) examples {
	t.Helper()
	b, err := os.ReadFile("testdata/examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex examples
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

// near compares JSON values: same structure and strings, numbers within tol.
func near(got, want any, tol float64, path string) error {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > tol {
			return fmt.Errorf("%s: got %v, want %v (±%g)", path, got, w, tol)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: got %v, want %v", path, got, w)
		}
		for i := range w {
			if err := near(g[i], w[i], tol, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: got %v, want %v", path, got, w)
		}
		for k := range w {
			if err := near(g[k], w[k], tol, path+"."+k); err != nil {
				return err
			}
		}
	default:
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
	return nil
}

func decode(t *testing.T, raw []json.RawMessage) []any {
	t.Helper()
	out := make([]any, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestExampleModels loads models/ through the real ONNX Runtime and checks every
// version's outputs against numpy's, item by item and as one batch.
func TestExampleModels(t *testing.T) {
	// The graphs call their members through the registry serve starts.
	_, src := serve(t, "../../models")
	specs, err := src.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range specs {
		for _, v := range m.Versions {
			if v.Err != nil {
				t.Errorf("%s %s: %v", m.Name, v.Version, v.Err)
			}
			listed = append(listed, m.Name+"/"+v.Version)
		}
	}
	if want := []string{"diabetes/v1", "digits/v1", "digits-cnn/v1", "iris/v1", "iris/v2", "iris-cascade/v1", "iris-ensemble/v1", "wine/v1"}; !slices.Equal(listed, want) {
		t.Fatalf("listed %v, want %v", listed, want)
	}
	iris := specs[slices.IndexFunc(specs, func(m registry.ModelSpec) bool { return m.Name == "iris" })]
	if want := (registry.Rule{Strategy: registry.Weighted, Weights: map[string]float64{"v1": 90, "v2": 10}}); !reflect.DeepEqual(iris.Rule, want) {
		t.Errorf("iris rule = %+v, want %+v", iris.Rule, want)
	}

	ex := readExamples(t)
	for _, m := range specs {
		for _, v := range m.Versions {
			t.Run(m.Name+"/"+v.Version, func(t *testing.T) {
				want, ok := ex[m.Name][v.Version]
				if !ok {
					t.Fatal("no examples")
				}
				p, err := v.Loader.Load(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				ctx := context.Background()
				for i, item := range want.Items {
					out, err := p.Run(ctx, []json.RawMessage{item}, nil)
					if err != nil {
						t.Fatalf("item %d: %v", i, err)
					}
					if err := near(decode(t, out)[0], want.Results[i], 1e-5, fmt.Sprintf("single %d", i)); err != nil {
						t.Error(err)
					}
				}
				out, err := p.Run(ctx, want.Items, nil)
				if err != nil {
					t.Fatal(err)
				}
				batch := want.Results
				if want.Batch != nil {
					batch = want.Batch
				}
				if err := near(decode(t, out), batch, 1e-5, "batch"); err != nil {
					t.Error(err)
				}
				if want.Raw != nil {
					// Rounding hides small errors: compare the results before it too.
					raw := *p
					raw.Post = slices.DeleteFunc(slices.Clone(p.Post), func(s pipeline.Step) bool { return s.Name() == "round" })
					out, err := raw.Run(ctx, want.Items, nil)
					if err != nil {
						t.Fatal(err)
					}
					if err := near(decode(t, out), want.Raw, 1e-5, "unrounded"); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

// TestExampleInputErrors checks what a client sees for bad input to the examples.
func TestExampleInputErrors(t *testing.T) {
	src := repository.New(repository.Options{Dir: "../../models", Backends: backends(onnxtest.Runtime(t))})
	tests := []struct {
		model, version string
		batch          bool
		items          []string
		wantErr        string
	}{
		{"iris", "v1", false, []string{`[5.1,3.5,1.4]`}, "data: expected 4 numbers, got 3"},
		{"iris", "v2", true, []string{`[5.1,3.5,1.4,0.2]`, `{"sepal_length":5.1,"sepal_width":3.5,"petal_length":1.4}`},
			`items[1]: missing the feature "petal_width" (features: sepal_length, sepal_width, petal_length, petal_width)`},
		{"diabetes", "v1", false, []string{`{"age":"59"}`}, "data.age: expected a number, got a string"},
		{"digits", "v1", true, []string{`[0,0,9,16,10,1,0,0]`}, "items[0]: expected 64 numbers, got 8"},
		{"digits-cnn", "v1", false, []string{`[0,0,9,16,10,1,0,0]`}, "data: expected 1 array of shape [8,8], got 8"},
	}
	for _, tt := range tests {
		t.Run(tt.model+"/"+tt.version, func(t *testing.T) {
			spec, err := src.Model(context.Background(), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(spec.Versions, func(v registry.VersionSpec) bool { return v.Version == tt.version })
			p, err := spec.Versions[i].Loader.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			items := make([]json.RawMessage, len(tt.items))
			for i, it := range tt.items {
				items[i] = json.RawMessage(it)
			}
			_, err = p.Run(context.Background(), items, nil)
			var ie *pipeline.InputError
			root := "data"
			if errors.As(err, &ie) && tt.batch {
				root = fmt.Sprintf("items[%d]", ie.Item)
			}
			if err == nil || ie == nil || ie.In(root) != tt.wantErr {
				t.Fatalf("error = %v, want invalid input %q", err, tt.wantErr)
			}
		})
	}
}
