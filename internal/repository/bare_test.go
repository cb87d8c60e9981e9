package repository_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/tensor"
)

// twoLines is the shortest model.yaml that serves an ONNX file.
const twoLines = "backend: onnx\nartifact: model.onnx\n"

// TestTwoLineConfig: a version whose model.yaml names only its backend and artifact
// loads through ONNX Runtime: /predict's data is the model's one input per item, the
// result every output by name, a tensor call sends and gets the model's own tensors,
// and the metadata lists the to_tensor step that reads the data. A model whose input
// has a dimension of any size is refused at load, saying what to list.
func TestTwoLineConfig(t *testing.T) {
	rt := onnxtest.Runtime(t)
	w := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}
	tests := []struct {
		name      string
		graph     onnxtest.Graph
		item      string
		want      string
		wantPre   string // the steps metadata lists
		wantIn    []pipeline.Tensor
		wantOut   []pipeline.Tensor
		wantError string // after "<dir>/m/v1/model.yaml: "
	}{
		{name: "one output", graph: onnxtest.Linear(-1, w, []float32{0, 0, 0}), item: `[1,2,3,4]`, want: `{"y":[5,6,7]}`,
			wantPre: `[{"Name":"to_tensor","Params":{"dtype":"float32","shape":[4]}}]`,
			wantIn:  []pipeline.Tensor{{Name: "x", DType: "float32", Shape: []int64{-1, 4}}},
			wantOut: []pipeline.Tensor{{Name: "y", DType: "float32", Shape: []int64{-1, 3}}}},
		{name: "two outputs", graph: onnxtest.Classifier(w, []float32{0, 0, 0}), item: `[0,0,3,0]`,
			want:    `{"label":2,"probabilities":[0.0452785,0.0452785,0.909443]}`,
			wantPre: `[{"Name":"to_tensor","Params":{"dtype":"float32","shape":[4]}}]`,
			wantIn:  []pipeline.Tensor{{Name: "x", DType: "float32", Shape: []int64{-1, 4}}},
			wantOut: []pipeline.Tensor{{Name: "label", DType: "int64", Shape: []int64{-1}}, {Name: "probabilities", DType: "float32", Shape: []int64{-1, 3}}}},
		{name: "an image", graph: onnxtest.Identity(onnxtest.Int64, []int64{-1, 2, 2}), item: `[[1,2],[3,4]]`, want: `{"y":[[1,2],[3,4]]}`,
			wantPre: `[{"Name":"to_tensor","Params":{"dtype":"int64","shape":[2,2]}}]`,
			wantIn:  []pipeline.Tensor{{Name: "x", DType: "int64", Shape: []int64{-1, 2, 2}}},
			wantOut: []pipeline.Tensor{{Name: "y", DType: "int64", Shape: []int64{-1, 2, 2}}}},
		{name: "any size", graph: onnxtest.Identity(onnxtest.Float, []int64{-1, -1}),
			wantError: `preprocess: required: model input "x" has dimensions of any size, [-1] per item, so /predict cannot tell which to take; list a to_tensor step with the shape, e.g. preprocess: [{to_tensor: {shape: [1]}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := repo(t, map[string]string{"m/v1/model.yaml": twoLines, "m/v1/model.onnx": string(tt.graph.Encode())})
			spec, err := repository.New(repository.Options{Dir: dir, Backends: backends(rt)}).Model(context.Background(), "m")
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.Versions[0].Err; err != nil {
				t.Fatal(err)
			}
			p, err := spec.Versions[0].Loader.Load(context.Background())
			if tt.wantError != "" {
				want := filepath.Join(dir, "m", "v1", "model.yaml") + ": " + tt.wantError
				if err == nil || err.Error() != want || !errors.Is(err, repository.ErrInvalidConfig) {
					t.Fatalf("error = %v\nwant    %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			out, err := p.Run(context.Background(), []json.RawMessage{json.RawMessage(tt.item)}, nil)
			if err != nil || string(out[0]) != tt.want {
				t.Fatalf("/predict: %s, %v; want %s", out, err, tt.want)
			}
			pre, post := p.Steps()
			if b, _ := json.Marshal(pre); string(b) != tt.wantPre || len(post) != 0 {
				t.Errorf("steps %s and %v, want %s and none", b, post, tt.wantPre)
			}
			if !reflect.DeepEqual(p.Info.Inputs, tt.wantIn) || !reflect.DeepEqual(p.Info.TensorInputs, tt.wantIn) ||
				!reflect.DeepEqual(p.Info.Outputs, tt.wantOut) || !reflect.DeepEqual(p.Info.TensorOutputs, tt.wantOut) {
				t.Errorf("info %+v", p.Info)
			}

			// A tensor call's row gets the same numbers.
			row, err := p.Pre[0].Apply(context.Background(), []any{json.RawMessage(tt.item)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.RunTensors(context.Background(), row, nil, p.Model.Predict, nil)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := json.Marshal(got[0].(tensor.Map)); err != nil || string(b) != tt.want {
				t.Errorf("tensor call: %s, %v; want %s", b, err, tt.want)
			}
		})
	}
}
