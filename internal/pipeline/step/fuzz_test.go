package step

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// fuzzChains are preprocess chains for a model input, and the postprocess chains the
// tensors they make are then fed to as the model's output "out" (float32, 3 per item).
var (
	fuzzPre = []struct {
		in    pipeline.Tensor
		specs []Spec
	}{
		{pipeline.Tensor{Name: "x", DType: "float32", Shape: []int64{3}}, []Spec{{Name: "to_tensor"}}},
		{pipeline.Tensor{Name: "x", DType: "float32", Shape: []int64{3}}, []Spec{
			{Name: "to_tensor", Params: &ToTensorParams{Field: "features", Features: []string{"a", "b", "c"}, DType: "float64"}},
			{Name: "standardize", Params: &StandardizeParams{Mean: []float64{1, -2, 1e300}, Std: []float64{0.5, 1e-300, 3}}},
			{Name: "cast", Params: &CastParams{DType: "float32"}},
		}},
		{pipeline.Tensor{Name: "x", DType: "int64", Shape: []int64{-1, 2}}, []Spec{{Name: "to_tensor", Params: &ToTensorParams{Shape: []int64{2, 2}}}}},
		{pipeline.Tensor{Name: "x", DType: "int32", Shape: []int64{}}, []Spec{{Name: "to_tensor"}}},
	}
	fuzzPost = [][]Spec{
		{{Name: "softmax"}, {Name: "top_k", Params: &TopKParams{K: 2, Labels: []string{"a", "b", "c"}}}},
		{{Name: "argmax"}, {Name: "label_map", Params: &LabelMapParams{Labels: []string{"a", "b", "c"}}}},
		{{Name: "threshold"}},
		{{Name: "round", Params: &RoundParams{Decimals: 3}}},
		{{Name: "round", Params: &RoundParams{Decimals: 0}}},
	}
	fuzzOut = []pipeline.Tensor{{Name: "out", DType: "float32", Shape: []int64{3}}}
)

// FuzzSteps: every step's Apply, on any JSON item (preprocess) or on any tensor a
// preprocess chain made of one (postprocess), returns one value per item or an
// error that is ErrInvalidInput (an *InputError naming the spot) or, after the
// model, ErrExecution; it never panics, and what it returns encodes as JSON unless a
// value is not finite.
// (go test -run '^$' -fuzz '^FuzzSteps$' ./internal/pipeline/step)
func FuzzSteps(f *testing.F) {
	for _, s := range []string{
		`[1, 2, 3]`, `{"features": {"a": 1, "b": 2, "c": 3}}`, `{"features": [1, 2, 3]}`,
		`[[1, 2], [3, 4]]`, `[]`, `7`, `-2147483649`, `9223372036854775808`, `1e39`, `[1e39, 0, 0]`,
		`[1, "2", 3]`, `[1, null, 3]`, `{"features": {"a": 1, "b": 2}}`, `{"features": {"a": 1, "b": 2, "c": 3, "d": 4}}`,
		`[[1], [2, 3]]`, `[1.5, -0, 4.9e-324]`, `"text"`, `null`, `{}`, `[1, 2, 3, 4]`, `0.5`, `[[[1]]]`,
	} {
		f.Add(s)
	}
	type chain struct {
		pre  []pipeline.Step
		post [][]pipeline.Step
	}
	var chains []chain
	for _, p := range fuzzPre {
		pre, _, err := BuildPre(p.specs, []pipeline.Tensor{p.in})
		if err != nil {
			f.Fatalf("BuildPre %v: %v", p.specs, err)
		}
		c := chain{pre: pre}
		if p.in.DType == "float32" {
			for _, specs := range fuzzPost {
				post, err := BuildPost(specs, fuzzOut)
				if err != nil {
					f.Fatalf("BuildPost %v: %v", specs, err)
				}
				c.post = append(c.post, post)
			}
		}
		chains = append(chains, c)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, item string) {
		for _, c := range chains {
			v, err := applyAll(ctx, c.pre, []any{json.RawMessage(item)})
			if err != nil {
				var ie *pipeline.InputError
				if !errors.As(err, &ie) || ie.Item != 0 || ie.Msg == "" {
					t.Fatalf("preprocess of %q: %T %v is not an input error of item 0", item, err, err)
				}
				continue
			}
			for _, post := range c.post {
				out, err := applyAll(ctx, post, []any{tensor.Map{"out": v[0].(*tensor.Tensor)}})
				if err != nil {
					if !errors.Is(err, pipeline.ErrInvalidInput) && !errors.Is(err, pipeline.ErrExecution) {
						t.Fatalf("postprocess of %q: %T %v is neither an input nor an execution error", item, err, err)
					}
					continue
				}
				if _, err := json.Marshal(out[0]); err != nil && !errors.Is(err, tensor.ErrNotFinite) {
					t.Fatalf("postprocess of %q gives %#v, which does not encode: %v", item, out[0], err)
				}
			}
		}
	})
}

// applyAll runs steps as the pipeline does, but without its recover, so a panic
// fails the fuzz target instead of becoming an error.
func applyAll(ctx context.Context, steps []pipeline.Step, batch []any) ([]any, error) {
	for _, s := range steps {
		out, err := s.Apply(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(out) != len(batch) {
			return nil, errors.New(s.Name() + ": wrong number of values")
		}
		batch = out
	}
	return batch, nil
}
