package step

import (
	"context"
	"fmt"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// StandardizeParams configure standardize, which computes (x - mean) / std along the
// last dimension, as scikit-learn's StandardScaler does.
type StandardizeParams struct {
	// Mean has one number per element of the last dimension. Required.
	Mean []float64 `yaml:"mean" json:"mean"`
	// Std has one positive number per element of the last dimension. Required.
	Std []float64 `yaml:"std" json:"std"`
}

var standardizeDef = define("standardize", pipeline.StagePreprocess, checkStandardize, buildStandardize)

func checkStandardize(p *StandardizeParams, at string) error {
	if len(p.Mean) == 0 {
		return bad(at+".mean", "required: one number per element of the last dimension")
	}
	if len(p.Std) == 0 {
		return bad(at+".std", "required: one number per element of the last dimension")
	}
	if len(p.Std) != len(p.Mean) {
		return bad(at+".std", "expected %d numbers (as many as mean), got %d", len(p.Mean), len(p.Std))
	}
	for i, s := range p.Std {
		if !(s > 0) {
			return bad(fmt.Sprintf("%s.std[%d]", at, i), "must be greater than 0, got %s", formatNumber(s))
		}
	}
	return nil
}

func buildStandardize(p *StandardizeParams, in Sig, at string) (pipeline.Step, Sig, error) {
	if err := needTensor(in, at, "standardize", true, 1); err != nil {
		return nil, Sig{}, err
	}
	last := in.Shape[len(in.Shape)-1]
	if last < 0 {
		return nil, Sig{}, bad(at, "the last dimension of %s has no fixed size to match mean and std", tensor.FormatShape(in.Shape))
	}
	// check made mean and std the same length, so when they do not fit the tensor
	// both are wrong; one message, naming std, says so.
	if int64(len(p.Std)) != last {
		return nil, Sig{}, bad(at+".std", "expected %d numbers, got %d", last, len(p.Std))
	}
	return &standardize{base: base{name: "standardize", at: at}, p: *p}, in, nil
}

type standardize struct {
	base
	p StandardizeParams
}

// Params returns the step's configuration, for metadata.
func (s *standardize) Params() any { return s.p }

func (s *standardize) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		t, err := s.tensorOf(v)
		if err != nil {
			return nil, err
		}
		if !t.DType.IsFloat() {
			return nil, s.execErr("expected float values, got %s", t.DType)
		}
		n := len(s.p.Mean)
		if len(t.Shape) == 0 || t.Shape[len(t.Shape)-1] != int64(n) {
			return nil, s.execErr("expected a last dimension of %d, got shape %s", n, tensor.FormatShape(t.Shape))
		}
		xs := t.Floats()
		out := make([]float64, len(xs))
		for j, x := range xs {
			y := (x - s.p.Mean[j%n]) / s.p.Std[j%n]
			if t.DType == tensor.Float32 {
				y = float64(float32(y)) // a float32 tensor holds float32 values
			}
			out[j] = y
		}
		return tensor.NewFloat(t.DType, t.Shape, out), nil
	})
}
