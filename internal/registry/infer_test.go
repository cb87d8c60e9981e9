package registry_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
)

// doubler is a tensor model: output "y" is each item's input doubled.
type doubler struct{}

func (doubler) Predict(_ context.Context, batch []any) ([]any, error) {
	out := make([]any, len(batch))
	for i, v := range batch {
		x := v.(*tensor.Tensor).Floats()
		y := make([]float64, len(x))
		for j := range x {
			y[j] = 2 * x[j]
		}
		out[i] = tensor.Map{"y": tensor.NewFloat(tensor.Float64, []int64{int64(len(y))}, y)}
	}
	return out, nil
}

func (doubler) Close() error { return nil }

// tensorStep is a step of a tensor call: f on every element of every item; an
// element f refuses (NaN) is the client's fault, named by its index.
type tensorStep struct {
	name string
	f    func(float64) float64
}

func (s tensorStep) Name() string { return s.name }

func (s tensorStep) Apply(_ context.Context, batch []any) ([]any, error) {
	out := make([]any, len(batch))
	for i, v := range batch {
		var t *tensor.Tensor
		switch x := v.(type) {
		case tensor.Map:
			t = x["y"]
		case *tensor.Tensor:
			t = x
		}
		xs := t.Floats()
		ys := make([]float64, len(xs))
		for j, x := range xs {
			if ys[j] = s.f(x); math.IsNaN(ys[j]) {
				return nil, pipeline.AtItem(i, pipeline.Invalid("["+strconv.Itoa(j)+"]", "%v is refused by %s", x, s.name))
			}
		}
		out[i] = tensor.NewFloat(tensor.Float64, t.Shape, ys)
	}
	return out, nil
}

// TestInferRunsTheTensorSteps: a tensor call goes through the version's tensor steps
// around the model (TensorPre, TensorPost), takes and gives the tensors Info's
// TensorInputs and TensorOutputs describe, counts its preprocess and postprocess
// stages in the version's statistics, and words a step's input error with the input's
// name and the row.
func TestInferRunsTheTensorSteps(t *testing.T) {
	model := pipeline.Tensor{Name: "x", DType: "float64", Shape: []int64{-1, 2}}
	out := pipeline.Tensor{Name: "y", DType: "float64", Shape: []int64{-1, 2}}
	p := &pipeline.Pipeline{
		Model: doubler{},
		TensorPre: []pipeline.Step{tensorStep{"shift", func(x float64) float64 {
			if x < 0 {
				return math.NaN() // refused
			}
			return x + 1
		}}},
		TensorPost: []pipeline.Step{tensorStep{"negate", func(x float64) float64 { return -x }}},
		Info:       pipeline.Info{Inputs: []pipeline.Tensor{model}, Outputs: []pipeline.Tensor{out}, TensorInputs: []pipeline.Tensor{model}, TensorOutputs: []pipeline.Tensor{out}},
	}
	r := started(t, registry.Fixed{{Name: "m", Versions: []registry.VersionSpec{{Version: "v1",
		Loader: registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return p, nil })}}}})
	rows := func(vs ...float64) []registry.Named {
		return []registry.Named{{Name: "x", Tensor: tensor.NewFloat(tensor.Float64, []int64{int64(len(vs) / 2), 2}, vs)}}
	}

	inf, err := r.Infer(context.Background(), registry.InferRequest{Model: "m", Inputs: rows(1, 2, 3, 4)})
	if err != nil {
		t.Fatal(err)
	}
	if len(inf.Outputs) != 1 || inf.Outputs[0].Name != "y" {
		t.Fatalf("outputs %+v, want y", inf.Outputs)
	}
	if y := inf.Outputs[0].Tensor; !slices.Equal(y.Shape, []int64{2, 2}) || !slices.Equal(y.Floats(), []float64{-4, -6, -8, -10}) {
		t.Errorf("y = %v %v, want [2,2] -2(x+1)", y.Shape, y.Floats())
	}
	st, err := r.Stats("m", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if s := st[0]; s.Input.Count != 1 || s.Infer.Count != 1 || s.Output.Count != 1 {
		t.Errorf("stages counted %d, %d, %d; want one each", s.Input.Count, s.Infer.Count, s.Output.Count)
	}

	_, err = r.Infer(context.Background(), registry.InferRequest{Model: "m", Inputs: rows(1, 2, 3, -4)})
	if !errors.Is(err, pipeline.ErrInvalidInput) || err.Error() != `input "x"[1][1]: -4 is refused by shift` {
		t.Errorf("error %v, want the invalid input of row 1, element 1", err)
	}

	_, err = r.Infer(context.Background(), registry.InferRequest{Model: "m", Inputs: rows(1, 2), Outputs: []string{"z"}})
	if te := (*registry.TensorError)(nil); !errors.As(err, &te) || te.Problem != registry.UnknownOutput {
		t.Errorf("error %v, want an unknown output", err)
	}
}
