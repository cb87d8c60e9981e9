package step

import (
	"context"
	"math"
	"slices"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// CastParams configure cast, which converts a tensor to another dtype.
type CastParams struct {
	// DType is float32, float64, int32 or int64. Required.
	DType string `yaml:"dtype" json:"dtype"`
}

var castDef = define("cast", pipeline.StagePreprocess, checkCast, buildCast)

func checkCast(p *CastParams, at string) error {
	if p.DType == "" {
		return bad(at+".dtype", "required: one of %s", dtypeList())
	}
	d, err := tensor.ParseDType(p.DType)
	if err != nil || !slices.Contains(tensor.InputDTypes, d) {
		return bad(at+".dtype", "%q is not one of %s", p.DType, dtypeList())
	}
	return nil
}

func buildCast(p *CastParams, in Sig, at string) (pipeline.Step, Sig, error) {
	if err := needTensor(in, at, "cast", false, 0); err != nil {
		return nil, Sig{}, err
	}
	out := in
	out.DType, out.DTypeFrom = tensor.DType(p.DType), at+".dtype"
	return &cast{base: base{name: "cast", at: at}, p: *p, to: out.DType}, out, nil
}

type cast struct {
	base
	p  CastParams
	to tensor.DType
}

// Params returns the step's configuration, for metadata.
func (s *cast) Params() any { return s.p }

// Apply converts each item. Unlike numpy's astype it refuses to truncate 1.5 to an
// integer or to overflow: silently changed input would give a wrong prediction that
// looks right.
func (s *cast) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(i int, v any) (any, error) {
		t, err := s.tensorOf(v)
		if err != nil {
			return nil, err
		}
		out := &tensor.Tensor{DType: s.to, Shape: t.Shape}
		if s.to.IsFloat() {
			out.Float = make([]float64, t.Len())
		} else {
			out.Int = make([]int64, t.Len())
		}
		for j := range t.Len() {
			if !t.DType.IsFloat() && !s.to.IsFloat() {
				x := t.Int[j]
				if !s.to.InRange(float64(x)) {
					return nil, pipeline.Invalid(elemPath("", t.Shape, j), "%d is out of range for %s", x, s.to)
				}
				out.Int[j] = x
				continue
			}
			x := t.At(j)
			if !s.to.InRange(x) {
				return nil, pipeline.Invalid(elemPath("", t.Shape, j), "%s is out of range for %s", formatNumber(x), s.to)
			}
			switch {
			case s.to == tensor.Float32:
				out.Float[j] = float64(float32(x))
			case s.to.IsFloat():
				out.Float[j] = x
			case x != math.Trunc(x):
				return nil, pipeline.Invalid(elemPath("", t.Shape, j), "%s is not a whole number, so it cannot be cast to %s", formatNumber(x), s.to)
			default:
				out.Int[j] = int64(x)
			}
		}
		return out, nil
	})
}
