package step

import (
	"context"
	"slices"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// SqueezeParams configure squeeze, which drops the dimensions of size 1 from each
// item, so a regressor's [1] per item is written as a number, not a one-element array.
type SqueezeParams struct {
	// Output is the model output to read; "" means the only output, or the previous
	// step's result.
	Output string `yaml:"output" json:"output,omitempty"`
}

var squeezeDef = define("squeeze", pipeline.StagePostprocess, func(*SqueezeParams, string) error { return nil }, buildSqueeze)

func buildSqueeze(p *SqueezeParams, in Sig, at string) (pipeline.Step, Sig, error) {
	s := &squeeze{p: *p}
	if in.Kind == KindLabels {
		if p.Output != "" {
			return nil, Sig{}, bad(at+".output", "only the first postprocess step reads a model output; this step reads the previous step's result")
		}
		s.outputStep = outputStep{base{name: "squeeze", at: at}, ""}
	} else {
		sig, output, err := pickOutput(in, p.Output, at)
		if err != nil {
			return nil, Sig{}, err
		}
		if err := needTensor(sig, at, "squeeze", false, 0); err != nil {
			return nil, Sig{}, err
		}
		s.outputStep = outputStep{base{name: "squeeze", at: at}, output}
		in = sig
	}
	// Only dimensions fixed at 1 in the model go, so the JSON shape of a result never
	// depends on the request.
	for i, d := range in.Shape {
		if d == 1 {
			s.drop = append(s.drop, i)
		}
	}
	if len(s.drop) == 0 {
		return nil, Sig{}, bad(at, "shape %s has no dimension of size 1 to drop", tensor.FormatShape(in.Shape))
	}
	out := in
	out.Shape = s.squeeze(in.Shape)
	return s, out, nil
}

type squeeze struct {
	outputStep
	p    SqueezeParams
	drop []int // the dimensions to drop
}

// Params returns the step's configuration, for metadata.
func (s *squeeze) Params() any { return s.p }

func (s *squeeze) squeeze(shape []int64) []int64 {
	out := make([]int64, 0, len(shape))
	for i, d := range shape {
		if !slices.Contains(s.drop, i) {
			out = append(out, d)
		}
	}
	return out
}

func (s *squeeze) check(shape []int64) error {
	for _, i := range s.drop {
		if i >= len(shape) || shape[i] != 1 {
			return s.execErr("expected size 1 in dimension %d, got shape %s", i, tensor.FormatShape(shape))
		}
	}
	return nil
}

func (s *squeeze) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		if l, ok := v.(*labels); ok {
			if err := s.check(l.shape); err != nil {
				return nil, err
			}
			return &labels{shape: s.squeeze(l.shape), values: l.values}, nil
		}
		t, err := s.input(v)
		if err != nil {
			return nil, err
		}
		if err := s.check(t.Shape); err != nil {
			return nil, err
		}
		return &tensor.Tensor{DType: t.DType, Shape: s.squeeze(t.Shape), Float: t.Float, F32: t.F32, Int: t.Int}, nil
	})
}
