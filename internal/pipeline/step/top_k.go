package step

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// TopKParams configure top_k, which lists the k highest scores of a one-dimensional
// tensor (per item), highest first, as {"label", "score"} objects, or {"index",
// "score"} without labels.
type TopKParams struct {
	// K is how many entries to list; 0 means 1.
	K int `yaml:"k" json:"k"`
	// Labels names score i at index i; without them entries carry the index.
	Labels []string `yaml:"labels" json:"labels,omitempty"`
	// Output is the model output to read; "" means the only output, or the previous
	// step's result.
	Output string `yaml:"output" json:"output,omitempty"`
}

var topKDef = withTensorView(define("top_k", pipeline.StagePostprocess, checkTopK, buildTopK), tensorTopK)

func checkTopK(p *TopKParams, at string) error {
	if p.K < 0 {
		return bad(at+".k", "must be at least 1, got %d", p.K)
	}
	if p.Labels != nil && len(p.Labels) == 0 {
		return bad(at+".labels", "must not be empty; leave it out to list indices")
	}
	if p.Labels != nil && p.K > len(p.Labels) {
		return bad(at+".k", "%d is more than the %d labels", p.K, len(p.Labels))
	}
	return nil
}

func buildTopK(p *TopKParams, in Sig, at string) (pipeline.Step, Sig, error) {
	sig, output, err := pickOutput(in, p.Output, at)
	if err != nil {
		return nil, Sig{}, err
	}
	if err := needTensor(sig, at, "top_k", false, 1); err != nil {
		return nil, Sig{}, err
	}
	if len(sig.Shape) != 1 {
		return nil, Sig{}, bad(at, "top_k needs one score per class (shape [n] per item), but receives %s", tensor.FormatShape(sig.Shape))
	}
	k := max(p.K, 1)
	if n := sig.Shape[0]; n >= 0 {
		if p.Labels != nil && int64(len(p.Labels)) != n {
			return nil, Sig{}, bad(at+".labels", "expected %d labels, one per score, got %d", n, len(p.Labels))
		}
		if int64(k) > n {
			return nil, Sig{}, bad(at+".k", "%d is more than the %d scores there are", k, n)
		}
	}
	s := &topK{outputStep: outputStep{base{name: "top_k", at: at}, output}, p: *p, k: k}
	if p.Labels != nil {
		s.quoted = make([][]byte, len(p.Labels))
		for i, l := range p.Labels {
			s.quoted[i], _ = json.Marshal(l)
		}
	}
	return s, Sig{Kind: KindRanked}, nil
}

type topK struct {
	outputStep
	p TopKParams
	k int
	// quoted are the labels as JSON strings, written once here rather than by every
	// answer that lists them.
	quoted [][]byte
}

// Params returns the step's configuration, for metadata.
func (s *topK) Params() any { return s.p }

func (s *topK) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) {
		t, err := s.input(v)
		if err != nil {
			return nil, err
		}
		if len(t.Shape) != 1 {
			return nil, s.execErr("expected one score per class, got shape %s", tensor.FormatShape(t.Shape))
		}
		n := t.Len()
		if s.p.Labels != nil && len(s.p.Labels) != n {
			return nil, s.execErr("the model returned %d scores for %d labels", n, len(s.p.Labels))
		}
		idx := make([]int, n)
		for j := range idx {
			idx[j] = j
			if x := t.At(j); math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, s.notFinite(x)
			}
		}
		// Highest score first; a tie goes to the lower index, so results never vary.
		slices.SortStableFunc(idx, func(a, b int) int {
			switch x, y := t.At(a), t.At(b); {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		})
		r := &ranked{entries: make([]rankedEntry, min(s.k, n)), labelled: s.p.Labels != nil, bits: t.DType.Bits(), float: t.DType.IsFloat()}
		for j := range r.entries {
			e := rankedEntry{index: idx[j], score: t.At(idx[j])}
			if r.labelled {
				e.label, e.quoted = s.p.Labels[idx[j]], s.quoted[idx[j]]
			}
			r.entries[j] = e
		}
		return r, nil
	})
}

// ranked is top_k's result, written as a JSON array of objects.
type ranked struct {
	entries  []rankedEntry
	labelled bool
	bits     int  // the precision to print scores in
	float    bool // integer scores print as integers
}

type rankedEntry struct {
	index int
	label string
	// quoted is label as a JSON string, when the step that listed it has it written.
	quoted []byte
	score  float64
}

func (r *ranked) MarshalJSON() ([]byte, error) {
	// Room for a label and a score per entry, so that a short list grows no more.
	b := make([]byte, 1, 2+48*len(r.entries))
	b[0] = '['
	var err error
	for j, e := range r.entries {
		if j > 0 {
			b = append(b, ',')
		}
		if r.labelled {
			l := e.quoted
			if l == nil {
				l, _ = json.Marshal(e.label)
			}
			b = append(append(b, `{"label":`...), l...)
		} else {
			b = strconv.AppendInt(append(b, `{"index":`...), int64(e.index), 10)
		}
		b = append(b, `,"score":`...)
		if r.float {
			b, err = tensor.AppendFloat(b, e.score, r.bits, err)
		} else {
			b = strconv.AppendFloat(b, e.score, 'f', -1, 64)
		}
		b = append(b, '}')
	}
	return append(b, ']'), err
}
