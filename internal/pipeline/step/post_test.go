package step

import (
	"math"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

var (
	logits   = pipeline.Tensor{Name: "logits", DType: "float32", Shape: []int64{3}}
	label    = pipeline.Tensor{Name: "label", DType: "int64", Shape: []int64{}}
	probs    = pipeline.Tensor{Name: "probabilities", DType: "float32", Shape: []int64{3}}
	score    = pipeline.Tensor{Name: "score", DType: "float64", Shape: []int64{1}}
	species  = []string{"setosa", "versicolor", "virginica"}
	classify = []pipeline.Tensor{label, probs}
)

func one(name string, t *tensor.Tensor) tensor.Map { return tensor.Map{name: t} }

func TestPostprocess(t *testing.T) {
	half := 0.5
	zero := 0.0
	tests := []struct {
		name     string
		specs    []Spec
		outputs  []pipeline.Tensor
		items    []tensor.Map
		want     string
		wantCode string
		wantErr  string
	}{
		{name: "no steps: every output by name", outputs: classify,
			items: []tensor.Map{{"label": i64(nil, 2), "probabilities": f32([]int64{3}, 0.25, 0.25, 0.5)}},
			want:  `[{"label":2,"probabilities":[0.25,0.25,0.5]}]`},

		{name: "softmax", specs: []Spec{{Name: "softmax"}}, outputs: []pipeline.Tensor{logits},
			items: []tensor.Map{one("logits", f32([]int64{3}, 0, 0, 0)), one("logits", f32([]int64{3}, 1000, 1000, 1000))},
			want:  `[[0.3333333333333333,0.3333333333333333,0.3333333333333333],[0.3333333333333333,0.3333333333333333,0.3333333333333333]]`},
		{name: "softmax of NaN", specs: []Spec{{Name: "softmax"}}, outputs: []pipeline.Tensor{logits},
			items:    []tensor.Map{one("logits", f32([]int64{3}, 0, math.NaN(), 0))},
			wantCode: "invalid_input", wantErr: "data: model output \"logits\" is NaN, not a finite number (postprocess[0].softmax cannot use it): the input is too large for the model's arithmetic; send values of the size the model was trained on"},
		{name: "softmax missing output", specs: []Spec{{Name: "softmax"}}, outputs: []pipeline.Tensor{logits},
			items:    []tensor.Map{one("other", f32([]int64{3}, 0, 0, 0))},
			wantCode: "execution_error", wantErr: `execution error: postprocess[0].softmax: the model returned no output "logits"`},

		{name: "argmax", specs: []Spec{{Name: "argmax"}}, outputs: []pipeline.Tensor{logits},
			items: []tensor.Map{one("logits", f32([]int64{3}, 1, 3, 2)), one("logits", f32([]int64{3}, 5, 5, 1))},
			want:  `[1,0]`},
		{name: "argmax of NaN", specs: []Spec{{Name: "argmax"}}, outputs: []pipeline.Tensor{logits},
			items:    []tensor.Map{one("logits", f32([]int64{3}, 1, math.NaN(), 2))},
			wantCode: "invalid_input", wantErr: "data: model output \"logits\" is NaN, not a finite number (postprocess[0].argmax cannot use it): the input is too large for the model's arithmetic; send values of the size the model was trained on"},
		{name: "argmax of a wrong shape", specs: []Spec{{Name: "argmax"}}, outputs: []pipeline.Tensor{logits},
			items:    []tensor.Map{one("logits", f32([]int64{2}, 1, 2, 3))},
			wantCode: "execution_error", wantErr: "execution error: postprocess[0].argmax: tensor of shape [2] holds 3 values, not 2"},

		{name: "argmax then label_map", specs: []Spec{{Name: "argmax"}, {Name: "label_map", Params: &LabelMapParams{Labels: species}}},
			outputs: []pipeline.Tensor{logits},
			items:   []tensor.Map{one("logits", f32([]int64{3}, 1, 3, 2)), one("logits", f32([]int64{3}, 0, 0, 9))},
			want:    `["versicolor","virginica"]`},
		{name: "label_map of a label output", specs: []Spec{{Name: "label_map", Params: &LabelMapParams{Labels: species, Output: "label"}}},
			outputs: classify,
			items:   []tensor.Map{{"label": i64(nil, 0), "probabilities": f32([]int64{3}, 1, 0, 0)}},
			want:    `["setosa"]`},
		{name: "label_map out of range", specs: []Spec{{Name: "label_map", Params: &LabelMapParams{Labels: species, Output: "label"}}},
			outputs:  classify,
			items:    []tensor.Map{{"label": i64(nil, 3), "probabilities": f32([]int64{3}, 1, 0, 0)}},
			wantCode: "execution_error", wantErr: "execution error: postprocess[0].label_map: class index 3 has no label (labels has 3 entries)"},
		{name: "label_map negative", specs: []Spec{{Name: "label_map", Params: &LabelMapParams{Labels: species, Output: "label"}}},
			outputs:  classify,
			items:    []tensor.Map{{"label": i64(nil, -1), "probabilities": f32([]int64{3}, 1, 0, 0)}},
			wantCode: "execution_error", wantErr: "execution error: postprocess[0].label_map: class index -1 has no label (labels has 3 entries)"},

		{name: "top_k with labels", specs: []Spec{{Name: "top_k", Params: &TopKParams{K: 2, Labels: species, Output: "probabilities"}}},
			outputs: classify,
			items:   []tensor.Map{{"label": i64(nil, 1), "probabilities": f32([]int64{3}, 0.1, 0.7, 0.2)}},
			want:    `[[{"label":"versicolor","score":0.7},{"label":"virginica","score":0.2}]]`},
		{name: "top_k without labels, ties to the lower index", specs: []Spec{{Name: "top_k", Params: &TopKParams{K: 3}}},
			outputs: []pipeline.Tensor{logits},
			items:   []tensor.Map{one("logits", f32([]int64{3}, 0.5, 0.25, 0.5))},
			want:    `[[{"index":0,"score":0.5},{"index":2,"score":0.5},{"index":1,"score":0.25}]]`},
		{name: "top_k default k", specs: []Spec{{Name: "top_k"}}, outputs: []pipeline.Tensor{logits},
			items: []tensor.Map{one("logits", f32([]int64{3}, 0.5, 0.25, 0.75))},
			want:  `[[{"index":2,"score":0.75}]]`},
		{name: "softmax, top_k, round", specs: []Spec{{Name: "softmax"}, {Name: "top_k", Params: &TopKParams{K: 1, Labels: species}}, {Name: "round", Params: &RoundParams{Decimals: 3}}},
			outputs: []pipeline.Tensor{logits},
			items:   []tensor.Map{one("logits", f32([]int64{3}, 0, 0, 0))},
			want:    `[[{"label":"setosa","score":0.333}]]`},
		{name: "top_k of infinity", specs: []Spec{{Name: "top_k"}}, outputs: []pipeline.Tensor{logits},
			items:    []tensor.Map{one("logits", f32([]int64{3}, 0.5, math.Inf(1), 0.75))},
			wantCode: "invalid_input", wantErr: "data: model output \"logits\" is +Inf, not a finite number (postprocess[0].top_k cannot use it): the input is too large for the model's arithmetic; send values of the size the model was trained on"},
		{name: "top_k with dynamic scores", specs: []Spec{{Name: "top_k", Params: &TopKParams{K: 5}}},
			outputs: []pipeline.Tensor{{Name: "s", DType: "float64", Shape: []int64{-1}}},
			items:   []tensor.Map{one("s", tensor.NewFloat(tensor.Float64, []int64{2}, []float64{1, 2}))},
			want:    `[[{"index":1,"score":2},{"index":0,"score":1}]]`},
		{name: "top_k labels do not fit dynamic scores", specs: []Spec{{Name: "top_k", Params: &TopKParams{Labels: species}}},
			outputs:  []pipeline.Tensor{{Name: "s", DType: "float64", Shape: []int64{-1}}},
			items:    []tensor.Map{one("s", tensor.NewFloat(tensor.Float64, []int64{2}, []float64{1, 2}))},
			wantCode: "execution_error", wantErr: "execution error: postprocess[0].top_k: the model returned 2 scores for 3 labels"},

		{name: "threshold default", specs: []Spec{{Name: "threshold"}}, outputs: []pipeline.Tensor{score},
			items: []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{0.5})), one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{0.49}))},
			want:  `[[1],[0]]`},
		{name: "threshold, squeeze, label_map", specs: []Spec{{Name: "threshold", Params: &ThresholdParams{Value: &zero}}, {Name: "squeeze"}, {Name: "label_map", Params: &LabelMapParams{Labels: []string{"no", "yes"}}}},
			outputs: []pipeline.Tensor{score},
			items:   []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{-2})), one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{3}))},
			want:    `["no","yes"]`},
		{name: "threshold of NaN", specs: []Spec{{Name: "threshold", Params: &ThresholdParams{Value: &half}}}, outputs: []pipeline.Tensor{score},
			items:    []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{math.NaN()}))},
			wantCode: "invalid_input", wantErr: "data: model output \"score\" is NaN, not a finite number (postprocess[0].threshold cannot use it): the input is too large for the model's arithmetic; send values of the size the model was trained on"},

		{name: "round", specs: []Spec{{Name: "round", Params: &RoundParams{Decimals: 2}}}, outputs: []pipeline.Tensor{score},
			items: []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{152.125})), one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{-0.004}))},
			want:  `[[152.13],[-0]]`},
		{name: "round float32", specs: []Spec{{Name: "round", Params: &RoundParams{Decimals: 1}}}, outputs: []pipeline.Tensor{logits},
			items: []tensor.Map{one("logits", f32([]int64{3}, float64(float32(0.15)), 2.25, -2.25))},
			want:  `[[0.2,2.3,-2.3]]`},
		// A finite input too large for the model's arithmetic: the input's fault.
		{name: "round of infinity", specs: []Spec{{Name: "round"}}, outputs: []pipeline.Tensor{score},
			items:    []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{math.Inf(-1)}))},
			wantCode: "invalid_input", wantErr: "data: the result is not a finite number: the input is too large for the model's arithmetic; send values of the size the model was trained on"},

		{name: "squeeze then round", specs: []Spec{{Name: "squeeze"}, {Name: "round", Params: &RoundParams{Decimals: 1}}}, outputs: []pipeline.Tensor{score},
			items: []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{1}, []float64{151.96}))},
			want:  `[152]`},
		{name: "squeeze of a wrong shape", specs: []Spec{{Name: "squeeze"}}, outputs: []pipeline.Tensor{score},
			items:    []tensor.Map{one("score", tensor.NewFloat(tensor.Float64, []int64{2}, []float64{1, 2}))},
			wantCode: "execution_error", wantErr: "execution error: postprocess[0].squeeze: expected size 1 in dimension 0, got shape [2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runPost(t, tt.specs, tt.outputs, tt.items...)
			check(t, got, err, tt.want, tt.wantCode, tt.wantErr)
		})
	}
}
