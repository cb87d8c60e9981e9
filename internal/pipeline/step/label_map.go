package step

import (
	"context"
	"encoding/json"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// LabelMapParams configure label_map, which replaces class indices with names.
type LabelMapParams struct {
	// Labels names class i at index i. Required.
	Labels []string `yaml:"labels" json:"labels"`
	// Output is the model output to read (an integer label tensor, say); "" means the
	// only output, or the previous step's result.
	Output string `yaml:"output" json:"output,omitempty"`
}

var labelMapDef = withTensorView(define("label_map", pipeline.StagePostprocess, checkLabelMap, buildLabelMap), tensorLabelMap)

func checkLabelMap(p *LabelMapParams, at string) error {
	if len(p.Labels) == 0 {
		return bad(at+".labels", "required: the name of each class, in class index order")
	}
	return nil
}

func buildLabelMap(p *LabelMapParams, in Sig, at string) (pipeline.Step, Sig, error) {
	sig, output, err := pickOutput(in, p.Output, at)
	if err != nil {
		return nil, Sig{}, err
	}
	if err := needTensor(sig, at, "label_map", false, 0); err != nil {
		return nil, Sig{}, err
	}
	if sig.DType.IsFloat() {
		return nil, Sig{}, bad(at, "label_map needs class indices (integers), but receives %s; put argmax or threshold before it", sig.DType)
	}
	out := Sig{Kind: KindLabels, Shape: sig.Shape}
	return &labelMap{outputStep: outputStep{base{name: "label_map", at: at}, output}, p: *p}, out, nil
}

type labelMap struct {
	outputStep
	p LabelMapParams
}

// Params returns the step's configuration, for metadata.
func (s *labelMap) Params() any { return s.p }

func (s *labelMap) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		t, err := s.input(v)
		if err != nil {
			return nil, err
		}
		if t.DType.IsFloat() {
			return nil, s.execErr("expected class indices, got %s", t.DType)
		}
		out := &labels{shape: t.Shape, values: make([]string, len(t.Int))}
		for j, k := range t.Int {
			if k < 0 || k >= int64(len(s.p.Labels)) {
				return nil, s.execErr("class index %d has no label (labels has %d entries)", k, len(s.p.Labels))
			}
			out.values[j] = s.p.Labels[k]
		}
		return out, nil
	})
}

// labels are class names in a tensor's shape: a string for shape [], an array for [n].
type labels struct {
	shape  []int64
	values []string
}

func (l *labels) MarshalJSON() ([]byte, error) {
	return tensor.Nest(nil, l.shape, func(b []byte, i int) []byte {
		s, _ := json.Marshal(l.values[i]) // a string always marshals
		return append(b, s...)
	}), nil
}
