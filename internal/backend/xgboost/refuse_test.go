package xgboost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// edited is a test model's JSON with change made to it.
func edited(t *testing.T, file string, change func(learner map[string]any)) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	change(m["learner"].(map[string]any))
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(v any, path ...string) map[string]any {
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	return v.(map[string]any)
}

func firstTree(l map[string]any) map[string]any {
	return obj(l, "gradient_booster", "model")["trees"].([]any)[0].(map[string]any)
}

func testdata(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRefused: files the backend does not evaluate, or that are not models, are
// refused when they load, with the sentinel and a message that says what to do.
func TestRefused(t *testing.T) {
	ubj := testdata(t, "binary_logistic.ubj")
	tests := []struct {
		name string
		data []byte
		err  error
		want string
	}{
		{"legacy binary", append([]byte("binf"), make([]byte, 200)...), xgboost.ErrUnsupportedModel, `legacy binary format; XGBoost 1.0 or later loads it: re-save it with booster.save_model("model.json")`},
		{"legacy binary without its header", append([]byte{0, 0, 0, 63}, make([]byte, 200)...), xgboost.ErrUnsupportedModel, `re-save it with booster.save_model("model.json")`},
		{"empty", nil, xgboost.ErrUnsupportedModel, "the file is empty"},
		{"JSON that is not a model", []byte(`{"a": 1}`), xgboost.ErrInvalidModel, "no learner.gradient_booster"},
		{"broken JSON", []byte(`{"learner": {`), xgboost.ErrInvalidModel, "unexpected end of JSON"},
		{"truncated UBJSON", ubj[:len(ubj)/2], xgboost.ErrInvalidModel, "UBJSON"},
		{"UBJSON with a huge count", []byte("{L\x00\x00\x00\x00\x00\x00\x00\x01a[$d#L\x7f\xff\xff\xff\xff\xff\xff\xff}"), xgboost.ErrInvalidModel, "UBJSON: a length of"},
		{"UBJSON nested too deep", append([]byte("{L\x00\x00\x00\x00\x00\x00\x00\x01a"), []byte(strings.Repeat("[", 100))...), xgboost.ErrInvalidModel, "nested more than 64 deep"},
		{"unknown objective", edited(t, "binary_logistic.json", func(l map[string]any) {
			obj(l, "objective")["name"] = "reg:expectileerror"
		}), xgboost.ErrUnsupportedModel, `objective "reg:expectileerror" is not one the xgboost backend evaluates (binary:hinge, binary:logistic`},
		{"unknown booster", edited(t, "binary_logistic.json", func(l map[string]any) {
			obj(l, "gradient_booster")["name"] = "gbforest"
		}), xgboost.ErrUnsupportedModel, `booster "gbforest"; the xgboost backend evaluates gbtree, dart and gblinear`},
		{"categorical split", edited(t, "binary_logistic.json", func(l map[string]any) {
			tr := firstTree(l)
			tr["split_type"].([]any)[0] = 1
		}), xgboost.ErrUnsupportedModel, "tree 0 splits on categories (node 0, feature 7): categorical splits are not supported; one-hot encode the feature"},
		{"categories listed", edited(t, "binary_logistic.json", func(l map[string]any) {
			tr := firstTree(l)
			tr["categories_nodes"] = []any{0}
			tr["categories"] = []any{1, 3}
		}), xgboost.ErrUnsupportedModel, "categorical splits are not supported"},
		{"a categorical feature", edited(t, "binary_logistic.json", func(l map[string]any) {
			types := make([]any, 30)
			for i := range types {
				types[i] = "q"
			}
			types[4] = "c"
			l["feature_types"] = types
		}), xgboost.ErrUnsupportedModel, `feature 4 is categorical (feature_types "c")`},
		{"vector leaves", edited(t, "binary_logistic.json", func(l map[string]any) {
			obj(firstTree(l), "tree_param")["size_leaf_vector"] = "3"
		}), xgboost.ErrUnsupportedModel, `vector leaves (size_leaf_vector 3, multi_strategy "multi_output_tree")`},
		{"a cycle", edited(t, "binary_logistic.json", func(l map[string]any) {
			tr := firstTree(l)
			tr["left_children"].([]any)[1] = 0
		}), xgboost.ErrInvalidModel, "tree 0: node 1 has children 0 and"},
		{"a feature past the last", edited(t, "binary_logistic.json", func(l map[string]any) {
			firstTree(l)["split_indices"].([]any)[0] = 30
		}), xgboost.ErrInvalidModel, "node 0 splits on feature 30, but the model has 30"},
		{"arrays of different lengths", edited(t, "binary_logistic.json", func(l map[string]any) {
			tr := firstTree(l)
			tr["split_conditions"] = tr["split_conditions"].([]any)[1:]
		}), xgboost.ErrInvalidModel, "its node arrays are not all of num_nodes"},
		{"tree_info short", edited(t, "binary_logistic.json", func(l map[string]any) {
			m := obj(l, "gradient_booster", "model")
			m["tree_info"] = m["tree_info"].([]any)[1:]
		}), xgboost.ErrInvalidModel, "20 trees but 19 tree_info entries"},
		{"a tree of a class past the last", edited(t, "multi_softprob.json", func(l map[string]any) {
			obj(l, "gradient_booster", "model")["tree_info"].([]any)[0] = 3
		}), xgboost.ErrInvalidModel, "tree 0 adds to output 3 of 3"},
		{"dart short of weights", edited(t, "dart.json", func(l map[string]any) {
			gb := obj(l, "gradient_booster")
			gb["weight_drop"] = gb["weight_drop"].([]any)[1:]
		}), xgboost.ErrInvalidModel, "dart: 15 trees but 14 weight_drop entries"},
		{"base_score with no logistic margin", edited(t, "binary_logistic.json", func(l map[string]any) {
			obj(l, "learner_model_param")["base_score"] = "[2E0]"
		}), xgboost.ErrInvalidModel, "base_score 2 has no margin for binary:logistic"},
		{"base_score of the wrong length", edited(t, "multi_softprob.json", func(l map[string]any) {
			obj(l, "learner_model_param")["base_score"] = "[1E-1,2E-1]"
		}), xgboost.ErrInvalidModel, "base_score has 2 values for 3 outputs"},
		{"base_score not a number", edited(t, "binary_logistic.json", func(l map[string]any) {
			obj(l, "learner_model_param")["base_score"] = "half"
		}), xgboost.ErrInvalidModel, `"half" is not a number`},
		{"gblinear short of weights", edited(t, "gblinear.json", func(l map[string]any) {
			m := obj(l, "gradient_booster", "model")
			m["weights"] = m["weights"].([]any)[1:]
		}), xgboost.ErrInvalidModel, "gblinear has 10 weights; 10 features and 1 outputs need 11"},
		{"feature names of the wrong count", edited(t, "binary_logistic.json", func(l map[string]any) {
			l["feature_names"] = []any{"a"}
		}), xgboost.ErrInvalidModel, "1 feature_names for 30 features"},
		{"no features", edited(t, "binary_logistic.json", func(l map[string]any) {
			obj(l, "learner_model_param")["num_feature"] = "0"
		}), xgboost.ErrInvalidModel, "num_feature is 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := xgboost.Open("wine/v1/model.json", tt.data)
			if err == nil {
				t.Fatalf("opened %v", m.Outputs())
			}
			if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\nwant %v containing %q", err, tt.err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "wine/v1/model.json: ") {
				t.Errorf("error %q does not name the file first", err)
			}
		})
	}
}

// TestShapes: a file's outputs follow its objective, and the one input is FP32
// [-1, features], with the file's feature names when it has them.
func TestShapes(t *testing.T) {
	tests := []struct {
		file     string
		outputs  string
		features string
		platform string
	}{
		{"binary_logistic.json", "probabilities float32 [-1 2]", "f_0", "xgboost_json"},
		{"binary_logistic.ubj", "probabilities float32 [-1 2]", "f_0", "xgboost_ubj"},
		{"multi_softprob.json", "probabilities float32 [-1 3]", "sepal_length", "xgboost_json"},
		{"multi_softmax.json", "probabilities float32 [-1 3], predictions float32 [-1]", "", "xgboost_json"},
		{"reg_squarederror.json", "predictions float32 [-1]", "age", "xgboost_json"},
		{"binary_logitraw.json", "predictions float32 [-1]", "", "xgboost_json"},
		{"gblinear_multi.ubj", "probabilities float32 [-1 3]", "", "xgboost_ubj"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m, err := xgboost.Open(tt.file, testdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var outs []string
			for _, o := range m.Outputs() {
				outs = append(outs, fmt.Sprint(o.Name, " ", o.DType, " ", o.Shape))
			}
			if got := strings.Join(outs, ", "); got != tt.outputs {
				t.Errorf("outputs %s, want %s", got, tt.outputs)
			}
			in := m.Inputs()
			if len(in) != 1 || in[0].Name != "input" || in[0].DType != "float32" || in[0].Shape[0] != -1 {
				t.Errorf("inputs %v", in)
			}
			if f := m.Features(); (tt.features == "") != (f == nil) || (f != nil && f[0] != tt.features) {
				t.Errorf("features %v, want the first %q", f, tt.features)
			}
			if p, r := m.Platform(); p != tt.platform || r != "xgboost" {
				t.Errorf("platform %s %s", p, r)
			}
		})
	}
}

// TestPredictRefusesBadItems: an item the preprocess steps should not have let
// through is the model's execution error, naming the item.
func TestPredictRefusesBadItems(t *testing.T) {
	m, err := xgboost.Open("iris/v1/model.json", testdata(t, "multi_softprob.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		item any
		want string
	}{
		{"not a tensor", "x", "item 0 is a string, not a tensor"},
		{"too short", tensor.NewFloat32([]int64{3}, []float32{1, 2, 3}), `item 0 is float32 [3]; input "input" takes float32 [4]`},
		{"FP64", tensor.NewFloat(tensor.Float64, []int64{4}, []float64{1, 2, 3, 4}), `item 0 is float64 [4]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Predict(context.Background(), []any{tt.item})
			if !errors.Is(err, pipeline.ErrExecution) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrExecution containing %q", err, tt.want)
			}
		})
	}
}

// TestBackend: model.json is the default artifact, a missing one is the artifact
// field's fault, and a delay is echo's alone.
func TestBackend(t *testing.T) {
	b := xgboost.Backend{}
	s := backend.Settings{Dir: "testdata"}
	if err := b.Check(&s); err != nil || s.Artifact != "model.json" {
		t.Fatalf("Check: %v, artifact %q", err, s.Artifact)
	}
	var fe *backend.FieldError
	if _, err := b.Open(context.Background(), s); !errors.As(err, &fe) || fe.Field != "artifact" {
		t.Errorf("Open without the file: %v", err)
	}
	s.Artifact = "reg_gamma.ubj"
	m, err := b.Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Size() != int64(len(testdata(t, "reg_gamma.ubj"))) {
		t.Errorf("size %d", m.Size())
	}
	if err := b.Check(&backend.Settings{Delay: 1}); !errors.As(err, &fe) || fe.Field != "delay" {
		t.Errorf("Check with a delay: %v", err)
	}
}
