package step

import (
	"context"
	"math"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// RoundParams configure round, which rounds floats to a number of decimals, half
// away from zero. After top_k it rounds the scores.
type RoundParams struct {
	// Decimals is the number of digits after the point, 0 to 15; 0 rounds to whole
	// numbers.
	Decimals int `yaml:"decimals" json:"decimals"`
	// Output is the model output to read; "" means the only output, or the previous
	// step's result.
	Output string `yaml:"output" json:"output,omitempty"`
}

var roundDef = withTensorView(define("round", pipeline.StagePostprocess, checkRound, buildRound), tensorRound)

func checkRound(p *RoundParams, at string) error {
	if p.Decimals < 0 || p.Decimals > 15 {
		return bad(at+".decimals", "must be between 0 and 15, got %d", p.Decimals)
	}
	return nil
}

func buildRound(p *RoundParams, in Sig, at string) (pipeline.Step, Sig, error) {
	s := &round{p: *p, scale: math.Pow10(p.Decimals)}
	if in.Kind == KindRanked {
		if p.Output != "" {
			return nil, Sig{}, bad(at+".output", "only the first postprocess step reads a model output; this step reads the previous step's result")
		}
		s.outputStep = outputStep{base{name: "round", at: at}, ""}
		return s, in, nil
	}
	sig, output, err := pickOutput(in, p.Output, at)
	if err != nil {
		return nil, Sig{}, err
	}
	if err := needTensor(sig, at, "round", true, 0); err != nil {
		return nil, Sig{}, err
	}
	s.outputStep = outputStep{base{name: "round", at: at}, output}
	return s, Sig{Kind: KindTensor, DType: tensor.Float64, Shape: sig.Shape}, nil
}

type round struct {
	outputStep
	p     RoundParams
	scale float64
}

// Params returns the step's configuration, for metadata.
func (s *round) Params() any { return s.p }

func (s *round) round(x float64) float64 { return math.Round(x*s.scale) / s.scale }

func (s *round) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		if r, ok := v.(*ranked); ok {
			out := &ranked{entries: make([]rankedEntry, len(r.entries)), labelled: r.labelled, bits: 64, float: r.float}
			for j, e := range r.entries {
				if r.float {
					e.score = s.round(e.score)
				}
				out.entries[j] = e
			}
			return out, nil
		}
		t, err := s.input(v)
		if err != nil {
			return nil, err
		}
		if !t.DType.IsFloat() {
			return nil, s.execErr("expected float values, got %s", t.DType)
		}
		xs := t.Floats()
		out := make([]float64, len(xs))
		for j, x := range xs {
			out[j] = s.round(x)
		}
		return tensor.NewFloat(tensor.Float64, t.Shape, out), nil
	})
}
