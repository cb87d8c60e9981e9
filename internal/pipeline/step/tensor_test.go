package step

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// runTensorPost builds specs for a tensor call of a model with the given outputs and
// runs canned outputs through them, returning what the call gets per item.
func runTensorPost(t *testing.T, specs []Spec, outputs []pipeline.Tensor, items ...tensor.Map) ([]pipeline.Tensor, []any, error) {
	t.Helper()
	if _, err := BuildPost(specs, outputs); err != nil {
		t.Fatalf("BuildPost: %v", err)
	}
	steps, outs, err := BuildTensorPost(specs, outputs)
	if err != nil {
		t.Fatalf("BuildTensorPost: %v", err)
	}
	p := &pipeline.Pipeline{Model: fixed(items), TensorPost: steps}
	in := make([]any, len(items))
	res, err := p.RunTensors(context.Background(), in, nil, p.Model.Predict, nil)
	return outs, res, err
}

// values writes a tensor call's results, one per item, as JSON, each tagged with its
// dtype: a tensor.Map's by name.
func values(t *testing.T, res []any) string {
	t.Helper()
	tag := func(x *tensor.Tensor) map[string]any {
		b, err := x.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{string(x.DType): json.RawMessage(b)}
	}
	out := make([]any, len(res))
	for i, r := range res {
		switch v := r.(type) {
		case *tensor.Tensor:
			out[i] = tag(v)
		case tensor.Map:
			m := map[string]any{}
			for name, x := range v {
				m[name] = tag(x)
			}
			out[i] = m
		default:
			t.Fatalf("item %d is a %T", i, r)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTensorPostprocess: in a tensor call every postprocess step of the catalogue
// runs as in /predict but top_k and label_map, which hand on the tensor they read,
// and round after top_k, which rounds that tensor (integer scores stay as they are);
// what the call gets is described by the output BuildTensorPost returns, named after
// the model output the steps read.
func TestTensorPostprocess(t *testing.T) {
	counts := pipeline.Tensor{Name: "counts", DType: "int64", Shape: []int64{3}}
	tests := []struct {
		name    string
		specs   []Spec
		outputs []pipeline.Tensor
		items   []tensor.Map
		steps   int               // how many steps run
		want    []pipeline.Tensor // what the call gets, per item
		values  string
	}{
		{name: "no steps: every output by name", outputs: classify,
			items: []tensor.Map{{"label": i64(nil, 2), "probabilities": f32([]int64{3}, 0.25, 0.25, 0.5)}},
			want:  classify, values: `[{"label":{"int64":2},"probabilities":{"float32":[0.25,0.25,0.5]}}]`},
		{name: "softmax, top_k and round (iris v1)", outputs: []pipeline.Tensor{logits},
			specs: []Spec{{Name: "softmax"}, {Name: "top_k", Params: &TopKParams{K: 2, Labels: species}}, {Name: "round", Params: &RoundParams{Decimals: 2}}},
			items: []tensor.Map{one("logits", f32([]int64{3}, 0, 0, 0)), one("logits", f32([]int64{3}, 2, 0, 1))},
			steps: 2, want: []pipeline.Tensor{{Name: "logits", DType: "float64", Shape: []int64{3}}},
			values: `[{"float64":[0.33,0.33,0.33]},{"float64":[0.67,0.09,0.24]}]`},
		{name: "top_k of a model output, then round (iris v2)", outputs: classify,
			specs: []Spec{{Name: "top_k", Params: &TopKParams{K: 3, Labels: species, Output: "probabilities"}}, {Name: "round", Params: &RoundParams{Decimals: 1}}},
			items: []tensor.Map{{"label": i64(nil, 1), "probabilities": f32([]int64{3}, 0.125, 0.75, 0.125)}},
			steps: 2, want: []pipeline.Tensor{{Name: "probabilities", DType: "float64", Shape: []int64{3}}},
			values: `[{"float64":[0.1,0.8,0.1]}]`},
		{name: "top_k alone hands on the scores as they are", outputs: []pipeline.Tensor{logits},
			specs: []Spec{{Name: "top_k"}},
			items: []tensor.Map{one("logits", f32([]int64{3}, 0.5, 1.5, -1))},
			steps: 1, want: []pipeline.Tensor{logits}, values: `[{"float32":[0.5,1.5,-1]}]`},
		{name: "round after top_k leaves integer scores", outputs: []pipeline.Tensor{counts},
			specs: []Spec{{Name: "top_k", Params: &TopKParams{K: 1}}, {Name: "round", Params: &RoundParams{Decimals: 1}}},
			items: []tensor.Map{one("counts", i64([]int64{3}, 3, 9, 1))},
			steps: 1, want: []pipeline.Tensor{counts}, values: `[{"int64":[3,9,1]}]`},
		{name: "squeeze and round (diabetes)", outputs: []pipeline.Tensor{score},
			specs: []Spec{{Name: "squeeze"}, {Name: "round", Params: &RoundParams{Decimals: 2}}},
			items: []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{205.4949}))},
			steps: 2, want: []pipeline.Tensor{{Name: "score", DType: "float64", Shape: []int64{}}}, values: `[{"float64":205.49}]`},
		{name: "argmax then label_map: the class index", outputs: []pipeline.Tensor{logits},
			specs: []Spec{{Name: "argmax"}, {Name: "label_map", Params: &LabelMapParams{Labels: species}}},
			items: []tensor.Map{one("logits", f32([]int64{3}, 1, 3, 2)), one("logits", f32([]int64{3}, 0, 0, 9))},
			steps: 1, want: []pipeline.Tensor{{Name: "logits", DType: "int64", Shape: []int64{}}}, values: `[{"int64":1},{"int64":2}]`},
		{name: "label_map of a label output", outputs: classify,
			specs: []Spec{{Name: "label_map", Params: &LabelMapParams{Labels: species, Output: "label"}}},
			items: []tensor.Map{{"label": i64(nil, 2), "probabilities": f32([]int64{3}, 0, 0, 1)}},
			steps: 1, want: []pipeline.Tensor{label}, values: `[{"int64":2}]`},
		{name: "threshold, label_map and squeeze", outputs: []pipeline.Tensor{score},
			specs: []Spec{{Name: "threshold"}, {Name: "label_map", Params: &LabelMapParams{Labels: []string{"no", "yes"}}}, {Name: "squeeze"}},
			items: []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{0.7})), one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{0.2}))},
			steps: 2, want: []pipeline.Tensor{{Name: "score", DType: "int64", Shape: []int64{}}}, values: `[{"int64":1},{"int64":0}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, _, err := BuildTensorPost(tt.specs, tt.outputs)
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) != tt.steps {
				t.Errorf("%d steps run, want %d", len(steps), tt.steps)
			}
			outs, res, err := runTensorPost(t, tt.specs, tt.outputs, tt.items...)
			if err != nil {
				t.Fatal(err)
			}
			eq := func(a, b pipeline.Tensor) bool {
				return a.Name == b.Name && a.DType == b.DType && slices.Equal(a.Shape, b.Shape)
			}
			if !slices.EqualFunc(outs, tt.want, eq) {
				t.Errorf("outputs %+v, want %+v", outs, tt.want)
			}
			if got := values(t, res); got != tt.values {
				t.Errorf("values %s\nwant   %s", got, tt.values)
			}
		})
	}
}

// TestTensorPreprocess: a tensor call sends the tensor to_tensor makes (its input,
// dtype and shape) and the steps after to_tensor run on it as on /predict's, their
// input errors naming the element at fault.
func TestTensorPreprocess(t *testing.T) {
	ids := []Spec{{Name: "to_tensor", Params: &ToTensorParams{DType: "int64"}}, {Name: "cast", Params: &CastParams{DType: "float32"}}}
	std := []Spec{{Name: "to_tensor", Params: &ToTensorParams{Features: irisIDs}},
		{Name: "standardize", Params: &StandardizeParams{Mean: []float64{5, 3, 4, 1}, Std: []float64{0.5, 0.5, 2, 1}}}}
	tests := []struct {
		name    string
		specs   []Spec
		model   pipeline.Tensor
		entry   pipeline.Tensor
		steps   int
		item    *tensor.Tensor
		want    string // the tensor the model gets, JSON
		wantErr string
	}{
		{name: "to_tensor alone", specs: []Spec{{Name: "to_tensor"}}, model: iris, entry: iris,
			item: tensor.NewFloat32([]int64{4}, []float32{5.1, 3.5, 1.4, 0.2}), want: `[5.1,3.5,1.4,0.2]`},
		{name: "standardize (iris v2)", specs: std, model: iris, entry: iris, steps: 1,
			item: tensor.NewFloat32([]int64{4}, []float32{5.5, 3, 8, 0.5}), want: `[1,0,2,-0.5]`},
		{name: "to_tensor's dtype, then cast", specs: ids, model: iris, entry: pipeline.Tensor{Name: "input", DType: "int64", Shape: []int64{4}}, steps: 1,
			item: tensor.NewInt(tensor.Int64, []int64{4}, []int64{1, 2, 3, 4}), want: `[1,2,3,4]`},
		{name: "cast refuses a value", specs: []Spec{{Name: "to_tensor", Params: &ToTensorParams{DType: "int64"}}, {Name: "cast", Params: &CastParams{DType: "int32"}}},
			model: pipeline.Tensor{Name: "ids", DType: "int32", Shape: []int64{3}}, entry: pipeline.Tensor{Name: "ids", DType: "int64", Shape: []int64{3}}, steps: 1,
			item: tensor.NewInt(tensor.Int64, []int64{3}, []int64{1, 3000000000, 3}), wantErr: "x[1]: 3000000000 is out of range for int32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := BuildPre(tt.specs, []pipeline.Tensor{tt.model}); err != nil {
				t.Fatalf("BuildPre: %v", err)
			}
			steps, entry, err := BuildTensorPre(tt.specs, []pipeline.Tensor{tt.model})
			if err != nil {
				t.Fatal(err)
			}
			if entry.Name != tt.entry.Name || entry.DType != tt.entry.DType || !slices.Equal(entry.Shape, tt.entry.Shape) {
				t.Errorf("the call sends %+v, want %+v", entry, tt.entry)
			}
			if len(steps) != tt.steps {
				t.Errorf("%d steps run, want %d", len(steps), tt.steps)
			}
			p := &pipeline.Pipeline{Model: identity{}, TensorPre: steps}
			res, err := p.RunTensors(context.Background(), []any{tt.item}, nil, p.Model.Predict, nil)
			if tt.wantErr != "" {
				var ie *pipeline.InputError
				if !errors.As(err, &ie) || ie.In("x") != tt.wantErr {
					t.Fatalf("error %v, want the input error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := res[0].(*tensor.Tensor).MarshalJSON()
			if err != nil || string(got) != tt.want {
				t.Errorf("the model gets %s %v, want %s", got, err, tt.want)
			}
			if d := res[0].(*tensor.Tensor).DType; string(d) != tt.model.DType {
				t.Errorf("the model gets %s, takes %s", d, tt.model.DType)
			}
		})
	}
}
