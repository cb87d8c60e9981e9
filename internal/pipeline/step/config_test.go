package step

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
)

func TestBuildPreErrors(t *testing.T) {
	two := []pipeline.Tensor{iris, {Name: "mask", DType: "float32", Shape: []int64{4}}}
	dyn := pipeline.Tensor{Name: "x", DType: "float32", Shape: []int64{-1}}
	str := pipeline.Tensor{Name: "x", DType: "string", Shape: []int64{4}}
	tests := []struct {
		name    string
		specs   []Spec
		inputs  []pipeline.Tensor
		wantErr string
	}{
		{"unknown step", []Spec{{Name: "to_tensor"}, {Name: "normalize"}}, []pipeline.Tensor{iris},
			`preprocess[1]: unknown step "normalize" (preprocess steps: cast, standardize, to_tensor)`},
		{"postprocess step", []Spec{{Name: "softmax"}}, []pipeline.Tensor{iris}, "preprocess[0]: softmax is a postprocess step, not a preprocess step"},
		{"standardize first", []Spec{{Name: "standardize", Params: &StandardizeParams{Mean: []float64{1}, Std: []float64{1}}}}, []pipeline.Tensor{iris},
			"preprocess[0].standardize: standardize needs a tensor, but receives the request's JSON; put to_tensor before it"},
		{"to_tensor twice", []Spec{{Name: "to_tensor"}, {Name: "to_tensor"}}, []pipeline.Tensor{iris},
			"preprocess[1].to_tensor: to_tensor reads the request's JSON, so it must be the first preprocess step"},
		{"wrong input name", []Spec{{Name: "to_tensor", Params: &ToTensorParams{Input: "features"}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.input: the model has no input "features" (it has input)`},
		{"input needed", []Spec{{Name: "to_tensor"}}, two, "preprocess[0].to_tensor.input: required: the model has 2 inputs (input, mask); name one"},
		{"shape mismatch", []Spec{{Name: "to_tensor", Params: &ToTensorParams{Shape: []int64{3}}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.shape: makes shape [3] per item, but model input "input" takes [4] per item`},
		{"features do not fit", []Spec{{Name: "to_tensor", Params: &ToTensorParams{Features: []string{"a", "b", "c"}}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.shape: makes shape [3] per item, but model input "input" takes [4] per item`},
		{"dtype mismatch", []Spec{{Name: "to_tensor", Params: &ToTensorParams{DType: "float64"}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.dtype: makes float64, but model input "input" takes float32; change the dtype or add a cast step`},
		{"cast to the wrong dtype", []Spec{{Name: "to_tensor"}, {Name: "cast", Params: &CastParams{DType: "int64"}}}, []pipeline.Tensor{iris},
			`preprocess[1].cast.dtype: makes int64, but model input "input" takes float32; change the dtype or add a cast step`},
		{"dynamic input needs a shape", []Spec{{Name: "to_tensor"}}, []pipeline.Tensor{dyn},
			`preprocess[0].to_tensor.shape: required: model input "x" has dimensions of any size, [-1] per item; say which to take`},
		{"unsupported input dtype", []Spec{{Name: "to_tensor"}}, []pipeline.Tensor{str},
			`preprocess[0].to_tensor.dtype: required: model input "x" takes string, which to_tensor does not make; set one of float32, float64, int32, int64 and add a cast`},
		{"bad dtype", []Spec{{Name: "to_tensor", Params: &ToTensorParams{DType: "float16"}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.dtype: "float16" is not one of float32, float64, int32, int64`},
		{"bad shape", []Spec{{Name: "to_tensor", Params: &ToTensorParams{Shape: []int64{4, 0}}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.shape[1]: dimensions must be positive, got 0`},
		{"duplicate feature", []Spec{{Name: "to_tensor", Params: &ToTensorParams{Features: []string{"a", "b", "a", "c"}}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.features[2]: "a" is listed twice`},
		{"features and shape disagree", []Spec{{Name: "to_tensor", Params: &ToTensorParams{Features: irisIDs, Shape: []int64{2, 2}}}}, []pipeline.Tensor{iris},
			`preprocess[0].to_tensor.shape: [2,2] does not hold the 4 named features; use [4] or leave shape out`},
		{"std too short", []Spec{{Name: "to_tensor"}, {Name: "standardize", Params: &StandardizeParams{Mean: []float64{1, 2, 3}, Std: []float64{1, 1, 1}}}}, []pipeline.Tensor{iris},
			`preprocess[1].standardize.std: expected 4 numbers, got 3`},
		{"std and mean differ", []Spec{{Name: "to_tensor"}, {Name: "standardize", Params: &StandardizeParams{Mean: []float64{1, 2, 3, 4}, Std: []float64{1, 1, 1}}}}, []pipeline.Tensor{iris},
			`preprocess[1].standardize.std: expected 4 numbers (as many as mean), got 3`},
		{"std zero", []Spec{{Name: "to_tensor"}, {Name: "standardize", Params: &StandardizeParams{Mean: []float64{1, 2, 3, 4}, Std: []float64{1, 0, 1, 1}}}}, []pipeline.Tensor{iris},
			`preprocess[1].standardize.std[1]: must be greater than 0, got 0`},
		{"mean missing", []Spec{{Name: "to_tensor"}, {Name: "standardize"}}, []pipeline.Tensor{iris},
			`preprocess[1].standardize.mean: required: one number per element of the last dimension`},
		{"standardize ints", []Spec{{Name: "to_tensor"}, {Name: "standardize", Params: &StandardizeParams{Mean: []float64{1, 2, 3}, Std: []float64{1, 1, 1}}}}, []pipeline.Tensor{ints},
			`preprocess[1].standardize: standardize needs float values, but receives int64`},
		{"cast without dtype", []Spec{{Name: "to_tensor"}, {Name: "cast"}}, []pipeline.Tensor{iris},
			`preprocess[1].cast.dtype: required: one of float32, float64, int32, int64`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := BuildPre(tt.specs, tt.inputs)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error does not wrap ErrConfig")
			}
		})
	}
}

func TestBuildPostErrors(t *testing.T) {
	tests := []struct {
		name    string
		specs   []Spec
		outputs []pipeline.Tensor
		wantErr string
	}{
		{"unknown step", []Spec{{Name: "sigmoid"}}, []pipeline.Tensor{logits},
			`postprocess[0]: unknown step "sigmoid" (postprocess steps: argmax, label_map, round, softmax, squeeze, threshold, top_k)`},
		{"preprocess step", []Spec{{Name: "cast", Params: &CastParams{DType: "float32"}}}, []pipeline.Tensor{logits},
			"postprocess[0]: cast is a preprocess step, not a postprocess step"},
		{"output needed", []Spec{{Name: "softmax"}}, classify,
			"postprocess[0].softmax.output: required: the model has 2 outputs (label, probabilities); name one"},
		{"unknown output", []Spec{{Name: "softmax", Params: &SoftmaxParams{Output: "prob"}}}, classify,
			`postprocess[0].softmax.output: the model has no output "prob" (it has label, probabilities)`},
		{"output on a later step", []Spec{{Name: "softmax"}, {Name: "argmax", Params: &ArgmaxParams{Output: "logits"}}}, []pipeline.Tensor{logits},
			"postprocess[1].argmax.output: only the first postprocess step reads a model output; this step reads the previous step's result"},
		{"softmax of ints", []Spec{{Name: "softmax", Params: &SoftmaxParams{Output: "label"}}}, classify,
			"postprocess[0].softmax: softmax needs float values, but receives int64"},
		{"softmax of a scalar", []Spec{{Name: "argmax"}, {Name: "softmax"}}, []pipeline.Tensor{logits},
			"postprocess[1].softmax: softmax needs float values, but receives int64"},
		{"argmax of a scalar", []Spec{{Name: "argmax", Params: &ArgmaxParams{Output: "label"}}}, classify,
			"postprocess[0].argmax: argmax needs a tensor with at least 1 dimension(s) per item, but receives shape []"},
		{"label_map of floats", []Spec{{Name: "label_map", Params: &LabelMapParams{Labels: species}}}, []pipeline.Tensor{logits},
			"postprocess[0].label_map: label_map needs class indices (integers), but receives float32; put argmax or threshold before it"},
		{"label_map without labels", []Spec{{Name: "argmax"}, {Name: "label_map"}}, []pipeline.Tensor{logits},
			"postprocess[1].label_map.labels: required: the name of each class, in class index order"},
		{"label_map twice", []Spec{{Name: "argmax"}, {Name: "label_map", Params: &LabelMapParams{Labels: species}}, {Name: "label_map", Params: &LabelMapParams{Labels: species}}}, []pipeline.Tensor{logits},
			"postprocess[2].label_map: label_map needs a tensor, but receives labels"},
		{"top_k labels count", []Spec{{Name: "top_k", Params: &TopKParams{Labels: []string{"a", "b"}}}}, []pipeline.Tensor{logits},
			"postprocess[0].top_k.labels: expected 3 labels, one per score, got 2"},
		{"top_k k too big", []Spec{{Name: "top_k", Params: &TopKParams{K: 4}}}, []pipeline.Tensor{logits},
			"postprocess[0].top_k.k: 4 is more than the 3 scores there are"},
		{"top_k k more than labels", []Spec{{Name: "top_k", Params: &TopKParams{K: 4, Labels: species}}}, []pipeline.Tensor{logits},
			"postprocess[0].top_k.k: 4 is more than the 3 labels"},
		{"top_k negative k", []Spec{{Name: "top_k", Params: &TopKParams{K: -1}}}, []pipeline.Tensor{logits},
			"postprocess[0].top_k.k: must be at least 1, got -1"},
		{"top_k of a matrix", []Spec{{Name: "top_k"}}, []pipeline.Tensor{{Name: "m", DType: "float32", Shape: []int64{2, 3}}},
			"postprocess[0].top_k: top_k needs one score per class (shape [n] per item), but receives [2,3]"},
		{"round of ints", []Spec{{Name: "round", Params: &RoundParams{Output: "label"}}}, classify,
			"postprocess[0].round: round needs float values, but receives int64"},
		{"round decimals", []Spec{{Name: "round", Params: &RoundParams{Decimals: 16}}}, []pipeline.Tensor{logits},
			"postprocess[0].round.decimals: must be between 0 and 15, got 16"},
		{"threshold of labels", []Spec{{Name: "argmax"}, {Name: "label_map", Params: &LabelMapParams{Labels: species}}, {Name: "threshold"}}, []pipeline.Tensor{logits},
			"postprocess[2].threshold: threshold needs a tensor, but receives labels"},
		{"squeeze nothing", []Spec{{Name: "squeeze"}}, []pipeline.Tensor{logits},
			"postprocess[0].squeeze: shape [3] has no dimension of size 1 to drop"},
		{"after top_k", []Spec{{Name: "top_k"}, {Name: "softmax"}}, []pipeline.Tensor{logits},
			"postprocess[1].softmax: softmax needs a tensor, but receives a top_k list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BuildPost(tt.specs, tt.outputs)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error does not wrap ErrConfig")
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		stage   pipeline.Stage
		specs   []Spec
		wantErr string
	}{
		{"good", pipeline.StagePreprocess, []Spec{{Name: "to_tensor", Params: &ToTensorParams{Shape: []int64{3}}}, {Name: "standardize", Params: &StandardizeParams{Mean: []float64{1}, Std: []float64{2}}}}, ""},
		{"unknown", pipeline.StagePostprocess, []Spec{{Name: "softmax"}, {Name: "sort"}}, `postprocess[1]: unknown step "sort" (postprocess steps: argmax, label_map, round, softmax, squeeze, threshold, top_k)`},
		{"bad param", pipeline.StagePreprocess, []Spec{{Name: "standardize", Params: &StandardizeParams{Mean: []float64{1}, Std: []float64{-1}}}}, "preprocess[0].standardize.std[0]: must be greater than 0, got -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.stage, tt.specs)
			if got := ""; err != nil {
				got = err.Error()
				if got != tt.wantErr {
					t.Fatalf("error = %s\nwant    %s", got, tt.wantErr)
				}
			} else if tt.wantErr != "" {
				t.Fatalf("no error, want %s", tt.wantErr)
			}
		})
	}
}

func TestCatalogue(t *testing.T) {
	for _, stage := range []pipeline.Stage{pipeline.StagePreprocess, pipeline.StagePostprocess} {
		for _, name := range Names(stage) {
			t.Run(name, func(t *testing.T) {
				d, err := Lookup(stage, name, "x")
				if err != nil {
					t.Fatal(err)
				}
				if p := d.Params(); p == nil {
					t.Fatal("no params")
				}
			})
		}
	}
	if got := Names(pipeline.StagePreprocess); !slices.Equal(got, []string{"cast", "standardize", "to_tensor"}) {
		t.Errorf("preprocess steps = %v", got)
	}
}

func TestParams(t *testing.T) {
	pre, _, err := BuildPre([]Spec{
		{Name: "to_tensor", Params: &ToTensorParams{Features: []string{"a", "b", "c", "d"}}},
		{Name: "standardize", Params: &StandardizeParams{Mean: []float64{1, 2, 3, 4}, Std: []float64{1, 1, 1, 1}}},
		{Name: "cast", Params: &CastParams{DType: "float32"}},
	}, []pipeline.Tensor{iris})
	if err != nil {
		t.Fatal(err)
	}
	post, err := BuildPost([]Spec{{Name: "softmax"}, {Name: "top_k", Params: &TopKParams{K: 2, Labels: species}}, {Name: "round", Params: &RoundParams{Decimals: 3}}}, []pipeline.Tensor{logits})
	if err != nil {
		t.Fatal(err)
	}
	type described struct {
		Name   string `json:"name"`
		Params any    `json:"params"`
	}
	var got []described
	for _, s := range append(pre, post...) {
		c, ok := s.(Configured)
		if !ok {
			t.Fatalf("%s does not describe its parameters", s.Name())
		}
		got = append(got, described{c.Name(), c.Params()})
	}
	b, _ := json.Marshal(got)
	want := `[{"name":"to_tensor","params":{"features":["a","b","c","d"]}},` +
		`{"name":"standardize","params":{"mean":[1,2,3,4],"std":[1,1,1,1]}},` +
		`{"name":"cast","params":{"dtype":"float32"}},` +
		`{"name":"softmax","params":{}},` +
		`{"name":"top_k","params":{"k":2,"labels":["setosa","versicolor","virginica"]}},` +
		`{"name":"round","params":{"decimals":3}}]`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
