package step

import (
	"context"
	"math"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// ArgmaxParams configure argmax, which returns the index of the largest value along
// the last dimension (the first one on a tie, as numpy does).
type ArgmaxParams struct {
	// Output is the model output to read; "" means the only output, or the previous
	// step's result.
	Output string `yaml:"output" json:"output,omitempty"`
}

var argmaxDef = define("argmax", pipeline.StagePostprocess, func(*ArgmaxParams, string) error { return nil }, buildArgmax)

func buildArgmax(p *ArgmaxParams, in Sig, at string) (pipeline.Step, Sig, error) {
	sig, output, err := pickOutput(in, p.Output, at)
	if err != nil {
		return nil, Sig{}, err
	}
	if err := needTensor(sig, at, "argmax", false, 1); err != nil {
		return nil, Sig{}, err
	}
	out := Sig{Kind: KindTensor, DType: tensor.Int64, Shape: sig.Shape[:len(sig.Shape)-1]}
	return &argmax{outputStep: outputStep{base{name: "argmax", at: at}, output}, p: *p}, out, nil
}

type argmax struct {
	outputStep
	p ArgmaxParams
}

// Params returns the step's configuration, for metadata.
func (s *argmax) Params() any { return s.p }

func (s *argmax) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		t, err := s.input(v)
		if err != nil {
			return nil, err
		}
		if len(t.Shape) == 0 || t.Shape[len(t.Shape)-1] == 0 {
			return nil, s.execErr("expected values along a last dimension, got shape %s", tensor.FormatShape(t.Shape))
		}
		n := int(t.Shape[len(t.Shape)-1])
		out := make([]int64, 0, t.Len()/n)
		for lo := 0; lo < t.Len(); lo += n {
			best := 0
			for j := range n {
				x := t.At(lo + j)
				if math.IsNaN(x) {
					return nil, s.notFinite(x)
				}
				if x > t.At(lo+best) {
					best = j
				}
			}
			out = append(out, int64(best))
		}
		return tensor.NewInt(tensor.Int64, t.Shape[:len(t.Shape)-1], out), nil
	})
}
