package step

import (
	"context"
	"math"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// ThresholdParams configure threshold, which turns each score into 1 when it is at
// least Value and 0 otherwise: a binary decision that label_map can name.
type ThresholdParams struct {
	// Value is the cut-off; nil means 0.5.
	Value *float64 `yaml:"value" json:"value,omitempty"`
	// Output is the model output to read; "" means the only output, or the previous
	// step's result.
	Output string `yaml:"output" json:"output,omitempty"`
}

var thresholdDef = define("threshold", pipeline.StagePostprocess, checkThreshold, buildThreshold)

// checkThreshold has nothing to add: define's check already refuses a value that is
// not finite.
func checkThreshold(*ThresholdParams, string) error { return nil }

func buildThreshold(p *ThresholdParams, in Sig, at string) (pipeline.Step, Sig, error) {
	sig, output, err := pickOutput(in, p.Output, at)
	if err != nil {
		return nil, Sig{}, err
	}
	if err := needTensor(sig, at, "threshold", false, 0); err != nil {
		return nil, Sig{}, err
	}
	cut := 0.5
	if p.Value != nil {
		cut = *p.Value
	}
	s := &threshold{outputStep: outputStep{base{name: "threshold", at: at}, output}, p: *p, cut: cut}
	return s, Sig{Kind: KindTensor, DType: tensor.Int64, Shape: sig.Shape}, nil
}

type threshold struct {
	outputStep
	p   ThresholdParams
	cut float64
}

// Params returns the step's configuration, for metadata.
func (s *threshold) Params() any { return s.p }

func (s *threshold) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		t, err := s.input(v)
		if err != nil {
			return nil, err
		}
		out := make([]int64, t.Len())
		for j := range out {
			x := t.At(j)
			if math.IsNaN(x) {
				return nil, s.notFinite(x)
			}
			if x >= s.cut {
				out[j] = 1
			}
		}
		return tensor.NewInt(tensor.Int64, t.Shape, out), nil
	})
}
