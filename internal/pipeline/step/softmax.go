package step

import (
	"context"
	"math"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// SoftmaxParams configure softmax, which turns scores (logits) into probabilities
// along the last dimension.
type SoftmaxParams struct {
	// Output is the model output to read; "" means the only output, or the previous
	// step's result when softmax is not the first postprocess step.
	Output string `yaml:"output" json:"output,omitempty"`
}

var softmaxDef = define("softmax", pipeline.StagePostprocess, func(*SoftmaxParams, string) error { return nil }, buildSoftmax)

func buildSoftmax(p *SoftmaxParams, in Sig, at string) (pipeline.Step, Sig, error) {
	sig, output, err := pickOutput(in, p.Output, at)
	if err != nil {
		return nil, Sig{}, err
	}
	if err := needTensor(sig, at, "softmax", true, 1); err != nil {
		return nil, Sig{}, err
	}
	out := Sig{Kind: KindTensor, DType: tensor.Float64, Shape: sig.Shape}
	return &softmax{outputStep: outputStep{base{name: "softmax", at: at}, output}, p: *p}, out, nil
}

type softmax struct {
	outputStep
	p SoftmaxParams
}

// Params returns the step's configuration, for metadata.
func (s *softmax) Params() any { return s.p }

func (s *softmax) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		t, err := s.input(v)
		if err != nil {
			return nil, err
		}
		if !t.DType.IsFloat() || len(t.Shape) == 0 {
			return nil, s.execErr("expected float values with at least one dimension, got %s %s", t.DType, tensor.FormatShape(t.Shape))
		}
		n := int(t.Shape[len(t.Shape)-1])
		xs := t.Floats()
		out := make([]float64, len(xs))
		for lo := 0; lo < len(xs); lo += n {
			row := xs[lo : lo+n]
			// Subtracting the maximum keeps exp from overflowing on large logits.
			m := math.Inf(-1)
			for _, x := range row {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, s.notFinite(x)
				}
				m = max(m, x)
			}
			sum := 0.0
			for j, x := range row {
				out[lo+j] = math.Exp(x - m)
				sum += out[lo+j]
			}
			for j := range row {
				out[lo+j] /= sum
			}
		}
		return tensor.NewFloat(tensor.Float64, t.Shape, out), nil
	})
}
