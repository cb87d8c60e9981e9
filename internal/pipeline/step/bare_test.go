package step

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
)

// TestBareLoad: a version without preprocess steps gets the to_tensor of its model's
// one input, whose dtype and shape metadata shows; a model it cannot feed is refused
// at load, saying what to list.
func TestBareLoad(t *testing.T) {
	image := pipeline.Tensor{Name: "image", DType: "float32", Shape: []int64{1, 8, 8}}
	tests := []struct {
		name       string
		inputs     []pipeline.Tensor
		wantParams string
		wantErr    string
	}{
		{"one input", []pipeline.Tensor{iris}, `{"dtype":"float32","shape":[4]}`, ""},
		{"an image", []pipeline.Tensor{image}, `{"dtype":"float32","shape":[1,8,8]}`, ""},
		{"a scalar", []pipeline.Tensor{{Name: "x", DType: "float64", Shape: []int64{}}}, `{"dtype":"float64"}`, ""},
		{"ints", []pipeline.Tensor{ints}, `{"dtype":"int64","shape":[3]}`, ""},
		{"two inputs", []pipeline.Tensor{iris, ints}, "",
			"preprocess: required: the model has 2 inputs (input, ids), and without steps /predict's data feeds a model of one; list steps starting with to_tensor, naming the input it feeds"},
		{"any size", []pipeline.Tensor{{Name: "tokens", DType: "int64", Shape: []int64{-1, 2}}}, "",
			`preprocess: required: model input "tokens" has dimensions of any size, [-1,2] per item, so /predict cannot tell which to take; list a to_tensor step with the shape, e.g. preprocess: [{to_tensor: {shape: [1,2]}}]`},
		{"strings", []pipeline.Tensor{{Name: "text", DType: "string", Shape: []int64{1}}}, "",
			`preprocess: required: model input "text" takes string, which /predict's JSON numbers cannot be read as; list steps starting with to_tensor (dtype one of float32, float64, int32, int64) and a cast`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, input, err := BuildPre(nil, tt.inputs)
			_, entry, terr := BuildTensorPre(nil, tt.inputs)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrConfig) {
					t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
				}
				if terr == nil || terr.Error() != tt.wantErr {
					t.Fatalf("tensor view's error = %v, want the same", terr)
				}
				return
			}
			if err != nil || terr != nil {
				t.Fatal(err, terr)
			}
			in := tt.inputs[0]
			if len(steps) != 1 || steps[0].Name() != "to_tensor" || input != in.Name {
				t.Fatalf("steps %v feeding %q", steps, input)
			}
			if b, _ := json.Marshal(steps[0].(Configured).Params()); string(b) != tt.wantParams {
				t.Errorf("params %s, want %s", b, tt.wantParams)
			}
			if !reflect.DeepEqual(entry, in) && !(len(in.Shape) == 0 && entry.Name == in.Name && entry.DType == in.DType && len(entry.Shape) == 0) {
				t.Errorf("a tensor call sends %+v, want the model's input %+v", entry, in)
			}
		})
	}
}

// TestBareData: without steps, /predict's data is the input's values nested by its
// per-item shape (or flat), checked as to_tensor checks them.
func TestBareData(t *testing.T) {
	image := pipeline.Tensor{Name: "image", DType: "float32", Shape: []int64{2, 2}}
	tests := []struct {
		name     string
		in       pipeline.Tensor
		items    []string
		want     string
		wantCode string
		wantErr  string
	}{
		{"a row", iris, []string{`[5.1,3.5,1.4,0.2]`}, `[[5.1,3.5,1.4,0.2]]`, "", ""},
		{"nested", image, []string{`[[1,2],[3,4]]`, `[5,6,7,8]`}, `[[[1,2],[3,4]],[[5,6],[7,8]]]`, "", ""},
		{"ints", ints, []string{`[1,2,3]`}, `[[1,2,3]]`, "", ""},
		{"too few", iris, []string{`[5.1,3.5,1.4]`}, "", "invalid_input", "data: expected 4 numbers, got 3"},
		{"a string", iris, []string{`[5.1,"3.5",1.4,0.2]`}, "", "invalid_input", "data[1]: expected a number, got a string"},
		{"an object", iris, []string{`{"x":[5.1,3.5,1.4,0.2]}`}, "", "invalid_input", "data: expected an array of 4 numbers, got an object"},
		{"a ragged row", image, []string{`[[1,2],[3]]`}, "", "invalid_input", "data[1]: expected 2 numbers, got 1"},
		{"a fraction for ints", ints, []string{`[1,2.5,3]`}, "", "invalid_input", "data[1]: expected a whole number for int64, got 2.5"},
		{"out of range", iris, []string{`[5.1,3.5,1e39,0.2]`}, "", "invalid_input", "data[2]: 1e39 is out of range for float32"},
		{"in a batch", iris, []string{`[5.1,3.5,1.4,0.2]`, `[1]`}, "", "invalid_input", "items[1]: expected 4 numbers, got 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runPre(t, len(tt.items) > 1, nil, tt.in, tt.items...)
			check(t, got, err, tt.want, tt.wantCode, tt.wantErr)
		})
	}
}
