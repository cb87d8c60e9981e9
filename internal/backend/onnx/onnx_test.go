package onnx_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

func TestFindLibrary(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, onnx.LocalLibrary)
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, []byte("not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(root, "internal", "pkg")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	tests := []struct {
		name, path, dir string
		want            string
		wantErr         string
	}{
		{name: "explicit", path: lib, dir: empty, want: lib},
		{name: "bare name left to the loader", path: "libonnxruntime.so.1", dir: empty, want: "libonnxruntime.so.1"},
		{name: "explicit missing", path: filepath.Join(empty, "nope.so"), dir: root, wantErr: "ONNX Runtime library not found: " + filepath.Join(empty, "nope.so") + ": no such file or directory"},
		{name: "local", dir: root, want: lib},
		{name: "local from a subdirectory", dir: nested, want: lib},
		{name: "nowhere", dir: empty, wantErr: "run `make onnxruntime`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := onnx.FindLibrary(tt.path, tt.dir)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, backend.ErrLibraryNotFound) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("FindLibrary = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestMissingLibrary(t *testing.T) {
	rt := onnx.New(onnx.Options{Library: filepath.Join(t.TempDir(), "libonnxruntime.so")})
	_, err := rt.OpenBytes("m.onnx", onnxtest.Identity(onnxtest.Float, []int64{-1, 1}).Encode(), onnx.ModelOptions{})
	if !errors.Is(err, backend.ErrLibraryNotFound) {
		t.Fatalf("error = %v, want backend.ErrLibraryNotFound", err)
	}
}

func TestOpenErrors(t *testing.T) {
	rt := onnxtest.Runtime(t)
	twoInputs := onnxtest.Graph{
		Inputs:  []onnxtest.Value{{Name: "a", Elem: onnxtest.Float, Dims: []int64{-1, 2}}, {Name: "b", Elem: onnxtest.Float, Dims: []int64{-1, 2}}},
		Outputs: []onnxtest.Value{{Name: "y", Elem: onnxtest.Float, Dims: []int64{-1, 2}}},
		Nodes:   []onnxtest.Node{{Op: "Add", Inputs: []string{"a", "b"}, Outputs: []string{"y"}}},
	}
	tests := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"not onnx", []byte("hello"), "m.onnx: not a model ONNX Runtime can load"},
		{"two inputs", twoInputs.Encode(), "unsupported model: m.onnx has 2 inputs (a, b); inferd feeds models with one input"},
		{"scalar input", onnxtest.Identity(onnxtest.Float, nil).Encode(), `unsupported model: m.onnx: input "x" is a scalar; inferd needs a batch dimension first`},
		{"fixed batch of 8", onnxtest.Identity(onnxtest.Float, []int64{8, 4}).Encode(), `unsupported model: m.onnx: input "x" has a fixed batch dimension of 8 (shape [8,4]); inferd needs -1 (any batch size) or 1`},
		{"string input", onnxtest.Identity(onnxtest.String, []int64{-1, 4}).Encode(), `unsupported model: m.onnx: input "x" takes string; inferd feeds float32, float64, int32 and int64`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := rt.OpenBytes("m.onnx", tt.data, onnx.ModelOptions{})
			if err == nil {
				m.Close()
				t.Fatalf("no error, want %q", tt.wantErr)
			}
			if !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
			}
		})
	}
}

func open(t testing.TB, g onnxtest.Graph, opts onnx.ModelOptions) *onnx.Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.onnx")
	onnxtest.Write(t, path, g)
	m, err := onnxtest.Runtime(t).Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// predict runs items and returns the results as JSON, one per item.
func predict(t *testing.T, m *onnx.Model, items ...*tensor.Tensor) (string, error) {
	t.Helper()
	batch := make([]any, len(items))
	for i, it := range items {
		batch[i] = it
	}
	out, err := m.Predict(context.Background(), batch)
	if err != nil {
		return "", err
	}
	// A model's FP32 outputs stay float32s, never widened.
	for i, o := range out {
		for name, y := range o.(tensor.Map) {
			if y.DType == tensor.Float32 && (y.Float != nil || y.F32 == nil && y.Len() > 0) {
				t.Errorf("item %d: FP32 output %q held as float64s", i, name)
			}
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

var (
	weights = [][]float32{{1, 0, 2}, {0, 1, -1}}
	bias    = []float32{0.5, 0, 0}
)

func TestPredict(t *testing.T) {
	f32 := func(v ...float64) *tensor.Tensor { return tensor.NewFloat(tensor.Float32, []int64{int64(len(v))}, v) }
	tests := []struct {
		name  string
		g     onnxtest.Graph
		opts  onnx.ModelOptions
		items []*tensor.Tensor
		want  string
	}{
		{name: "single", g: onnxtest.Linear(-1, weights, bias), items: []*tensor.Tensor{f32(1, 2)},
			want: `[{"y":[1.5,2,0]}]`},
		{name: "batch", g: onnxtest.Linear(-1, weights, bias), items: []*tensor.Tensor{f32(1, 2), f32(0, 0), f32(-1, 1)},
			want: `[{"y":[1.5,2,0]},{"y":[0.5,0,0]},{"y":[-0.5,1,-3]}]`},
		{name: "chunked batch", g: onnxtest.Linear(-1, weights, bias), opts: onnx.ModelOptions{MaxBatchSize: 2}, items: []*tensor.Tensor{f32(1, 2), f32(0, 0), f32(-1, 1)},
			want: `[{"y":[1.5,2,0]},{"y":[0.5,0,0]},{"y":[-0.5,1,-3]}]`},
		{name: "fixed batch of one", g: onnxtest.Linear(1, weights, bias), items: []*tensor.Tensor{f32(1, 2), f32(-1, 1)},
			want: `[{"y":[1.5,2,0]},{"y":[-0.5,1,-3]}]`},
		{name: "classifier outputs", g: onnxtest.Classifier([][]float32{{1, 0}, {0, 1}}, []float32{0, 0}), items: []*tensor.Tensor{f32(0, 0), f32(0, 2)},
			want: `[{"label":0,"probabilities":[0.5,0.5]},{"label":1,"probabilities":[0.11920291,0.880797]}]`},
		{name: "float64", g: onnxtest.Identity(onnxtest.Double, []int64{-1, 2}), items: []*tensor.Tensor{tensor.NewFloat(tensor.Float64, []int64{2}, []float64{0.1, math.MaxFloat64})},
			want: `[{"y":[0.1,1.7976931348623157e+308]}]`},
		{name: "int64", g: onnxtest.Identity(onnxtest.Int64, []int64{-1, 2}), items: []*tensor.Tensor{tensor.NewInt(tensor.Int64, []int64{2}, []int64{9007199254740993, -1}), tensor.NewInt(tensor.Int64, []int64{2}, []int64{3, 4})},
			want: `[{"y":[9007199254740993,-1]},{"y":[3,4]}]`},
		{name: "int32", g: onnxtest.Identity(onnxtest.Int32, []int64{-1, 1}), items: []*tensor.Tensor{tensor.NewInt(tensor.Int32, []int64{1}, []int64{-2147483648})},
			want: `[{"y":[-2147483648]}]`},
		{name: "dynamic item dims that differ run one by one", g: onnxtest.Identity(onnxtest.Float, []int64{-1, -1}), items: []*tensor.Tensor{f32(1), f32(1, 2)},
			want: `[{"y":[1]},{"y":[1,2]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := open(t, tt.g, tt.opts)
			got, err := predict(t, m, tt.items...)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPredictErrors(t *testing.T) {
	m := open(t, onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{})
	tests := []struct {
		name    string
		items   []any
		wantErr string
	}{
		{"not a tensor", []any{json.RawMessage(`[1,2]`)}, "item 0 is a json.RawMessage, not a tensor; the preprocess steps must end in one"},
		{"wrong dtype", []any{tensor.NewFloat(tensor.Float64, []int64{2}, []float64{1, 2})}, `item 0 is float64 [2]; input "x" takes float32 [2]`},
		{"wrong shape", []any{tensor.NewFloat(tensor.Float32, []int64{3}, []float64{1, 2, 3})}, `item 0 is float32 [3]; input "x" takes float32 [2]`},
		{"inconsistent", []any{tensor.NewFloat(tensor.Float32, []int64{2}, []float64{1})}, "item 0: tensor of shape [2] holds 1 values, not 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Predict(context.Background(), tt.items)
			if !errors.Is(err, pipeline.ErrExecution) || !strings.HasSuffix(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want an execution error ending in %q", err, tt.wantErr)
			}
		})
	}
	t.Run("closed", func(t *testing.T) {
		m := open(t, onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{})
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		_, err := m.Predict(context.Background(), []any{tensor.NewFloat(tensor.Float32, []int64{2}, []float64{1, 2})})
		if !errors.Is(err, pipeline.ErrExecution) || !strings.HasSuffix(err.Error(), "is closed") {
			t.Fatalf("error = %v", err)
		}
		_, err = m.Infer(context.Background(), tensor.NewFloat(tensor.Float32, []int64{1, 2}, []float64{1, 2}))
		if !errors.Is(err, pipeline.ErrExecution) || !strings.HasSuffix(err.Error(), "is closed") {
			t.Fatalf("Infer: error = %v", err)
		}
	})
}

func TestDescribe(t *testing.T) {
	m := open(t, onnxtest.Classifier(weights, bias), onnx.ModelOptions{})
	got := map[string]any{"inputs": m.Inputs(), "outputs": m.Outputs(), "item_inputs": m.ItemInputs(), "item_outputs": m.ItemOutputs()}
	b, _ := json.Marshal(got)
	want := `{"inputs":[{"Name":"x","DType":"float32","Shape":[-1,2]}],` +
		`"item_inputs":[{"Name":"x","DType":"float32","Shape":[2]}],` +
		`"item_outputs":[{"Name":"label","DType":"int64","Shape":[]},{"Name":"probabilities","DType":"float32","Shape":[3]}],` +
		`"outputs":[{"Name":"label","DType":"int64","Shape":[-1]},{"Name":"probabilities","DType":"float32","Shape":[-1,3]}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if m.Size() != int64(len(onnxtest.Classifier(weights, bias).Encode())) {
		t.Errorf("Size = %d", m.Size())
	}
}

// TestConcurrentPredict runs one session from many goroutines; with -race it also
// checks that the Go side shares nothing mutable.
func TestConcurrentPredict(t *testing.T) {
	m := open(t, onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				x := float64(g*100 + i)
				got, err := predict(t, m, tensor.NewFloat(tensor.Float32, []int64{2}, []float64{x, 1}))
				if err != nil {
					errs <- err
					return
				}
				want, _ := json.Marshal([]any{map[string]any{"y": []float32{float32(x + 0.5), 1, float32(2*x - 1)}}})
				if got != string(want) {
					errs <- errors.New(got + " != " + string(want))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestWarmupModel(t *testing.T) {
	want := onnxtest.Identity(onnxtest.Float, []int64{-1, 1}).Encode()
	if got := onnx.WarmupModel(); string(got) != string(want) {
		t.Fatalf("warmupModel is out of date: regenerate it from onnxtest.Identity")
	}
}

// TestOutputsNotOfTheirDeclaredShapes: one-item Runs write into kept outputs of the
// shapes the model declares; a model whose outputs are other shapes still answers,
// the first time and after.
func TestOutputsNotOfTheirDeclaredShapes(t *testing.T) {
	m := open(t, onnxtest.Linear(-1, weights, bias), onnx.ModelOptions{})
	onnx.MisdeclareOutput(m, 0, []int64{-1, 5}) // it computes 3
	for range 3 {
		got, err := predict(t, m, tensor.NewFloat(tensor.Float32, []int64{2}, []float64{1, 2}))
		if err != nil {
			t.Fatal(err)
		}
		if want := `[{"y":[1.5,2,0]}]`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}
