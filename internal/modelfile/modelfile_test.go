package modelfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/modelfile"
	"github.com/inferd/inferd/internal/pipeline"
)

// TestRead reads every example model and the XGBoost files of testdata (build.py),
// and compares what it finds with what onnx.load and XGBoost's own JSON say of them.
func TestRead(t *testing.T) {
	f32 := func(name string, shape ...int64) pipeline.Tensor {
		return pipeline.Tensor{Name: name, DType: "float32", Shape: shape}
	}
	tests := []struct {
		file string
		want modelfile.Model
	}{
		{"../../models/iris/v1/model.onnx", modelfile.Model{Backend: "onnx",
			Inputs: []pipeline.Tensor{f32("input", -1, 4)}, Outputs: []pipeline.Tensor{f32("logits", -1, 3)}}},
		{"../../models/iris/v2/model.onnx", modelfile.Model{Backend: "onnx",
			Inputs:  []pipeline.Tensor{f32("input", -1, 4)},
			Outputs: []pipeline.Tensor{{Name: "label", DType: "int64", Shape: []int64{-1}}, f32("probabilities", -1, 3)}}},
		{"../../models/diabetes/v1/model.onnx", modelfile.Model{Backend: "onnx",
			Inputs:  []pipeline.Tensor{{Name: "input", DType: "float64", Shape: []int64{-1, 10}}},
			Outputs: []pipeline.Tensor{{Name: "prediction", DType: "float64", Shape: []int64{-1, 1}}}}},
		{"../../models/digits/v1/model.onnx", modelfile.Model{Backend: "onnx",
			Inputs: []pipeline.Tensor{f32("input", -1, 64)}, Outputs: []pipeline.Tensor{f32("logits", -1, 10)}}},
		{"testdata/binary.json", modelfile.Model{Backend: "xgboost", Objective: "binary:logistic", Classes: 2,
			Features: []string{"sepal_length", "sepal_width", "petal_length", "petal_width"},
			Inputs:   []pipeline.Tensor{f32("input", -1, 4)}, Outputs: []pipeline.Tensor{f32("probabilities", -1, 2)}}},
		{"testdata/binary.ubj", modelfile.Model{Backend: "xgboost", Objective: "binary:logistic", Classes: 2,
			Features: []string{"sepal_length", "sepal_width", "petal_length", "petal_width"},
			Inputs:   []pipeline.Tensor{f32("input", -1, 4)}, Outputs: []pipeline.Tensor{f32("probabilities", -1, 2)}}},
		{"testdata/multiclass.json", modelfile.Model{Backend: "xgboost", Objective: "multi:softprob", Classes: 3,
			Inputs: []pipeline.Tensor{f32("input", -1, 4)}, Outputs: []pipeline.Tensor{f32("probabilities", -1, 3)}}},
		{"testdata/regression.json", modelfile.Model{Backend: "xgboost", Objective: "reg:squarederror",
			Inputs: []pipeline.Tensor{f32("input", -1, 4)}, Outputs: []pipeline.Tensor{f32("predictions", -1)}}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(filepath.Dir(tc.file))+"/"+filepath.Base(tc.file), func(t *testing.T) {
			m, err := modelfile.Read(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*m, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *m, tc.want)
			}
		})
	}
}

// TestReadRefuses: what is not a model file, or one model init cannot read, is
// refused with the sentinel that says which.
func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	onnx, err := os.ReadFile("../../models/iris/v1/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file string
		data []byte
		want error
	}{
		{"empty", "model.onnx", nil, modelfile.ErrNotModel},
		{"text", "model.onnx", []byte("hello, world\n"), modelfile.ErrNotModel},
		{"yaml", "model.onnx", []byte("backend: onnx\nartifact: model.onnx\n"), modelfile.ErrNotModel},
		{"truncated ONNX", "model.onnx", onnx[:len(onnx)/2], modelfile.ErrNotModel},
		{"JSON without a learner", "model.json", []byte(`{"a": 1}`), modelfile.ErrNotModel},
		{"JSON that is not JSON", "model.json", []byte(`{"learner": `), modelfile.ErrNotModel},
		{"XGBoost without features", "model.json", []byte(`{"learner": {"learner_model_param": {"num_feature": "0"}, "objective": {"name": "reg:squarederror"}}}`), modelfile.ErrNotModel},
		{"XGBoost without objective", "model.json", []byte(`{"learner": {"learner_model_param": {"num_feature": "3"}}}`), modelfile.ErrNotModel},
		{"XGBoost names of another count", "model.json", []byte(`{"learner": {"feature_names": ["a"], "learner_model_param": {"num_feature": "3"}, "objective": {"name": "reg:squarederror"}}}`), modelfile.ErrNotModel},
		{"UBJ that is not", "model.ubj", []byte("{i\x03abc"), modelfile.ErrNotModel},
		{"UBJ cut short", "model.ubj", mustRead(t, "testdata/binary.ubj")[:1000], modelfile.ErrNotModel},
		{"UBJ without a learner", "model.ubj", []byte("{i\x01aSi\x01b}"), modelfile.ErrNotModel},
		{"UBJ nested too deep", "model.ubj", []byte(strings.Repeat("[", 100) + strings.Repeat("]", 100)), modelfile.ErrNotModel},
		{"UBJ count beyond the file", "model.ubj", []byte("[$d#l\x7f\xff\xff\xff"), modelfile.ErrNotModel},
		{"XGBoost legacy binary", "model.bin", []byte("binf\x00\x00\x00?\x04\x00\x00\x00"), modelfile.ErrUnsupported},
		{"missing", "", nil, os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "missing")
			if tc.file != "" {
				path = filepath.Join(dir, tc.name, tc.file)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m, err := modelfile.Read(path)
			if !errors.Is(err, tc.want) {
				t.Errorf("got %+v, %v; want %v", m, err, tc.want)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzReadONNX: no bytes make the reader panic or loop.
func FuzzReadONNX(f *testing.F) {
	for _, p := range []string{"../../models/iris/v1/model.onnx", "../../models/iris/v2/model.onnx"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := modelfile.ReadONNX(data)
		if err == nil && (len(m.Inputs) == 0 || len(m.Outputs) == 0) {
			t.Errorf("a model without inputs or outputs: %+v", m)
		}
	})
}
