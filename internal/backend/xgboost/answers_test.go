package xgboost_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/tensor"
)

// answer is one test model of testdata/answers.json: its files (the same model as
// JSON and UBJSON), rows (nil for a missing value) and XGBoost's outputs for them.
type answer struct {
	Name    string                     `json:"name"`
	Files   []string                   `json:"files"`
	Rows    [][]*float64               `json:"rows"`
	Outputs map[string]json.RawMessage `json:"outputs"`
}

func readAnswers(t testing.TB) []answer {
	t.Helper()
	b, err := os.ReadFile("testdata/answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var as []answer
	if err := json.Unmarshal(b, &as); err != nil {
		t.Fatal(err)
	}
	return as
}

// rows turns an answer's rows into FP32 tensors, NaN where a value is missing.
func rows(a answer) []any {
	batch := make([]any, len(a.Rows))
	for i, r := range a.Rows {
		v := make([]float32, len(r))
		for j, x := range r {
			if x == nil {
				v[j] = float32(math.NaN())
			} else {
				v[j] = float32(*x)
			}
		}
		batch[i] = tensor.NewFloat32([]int64{int64(len(v))}, v)
	}
	return batch
}

// flat is an output's values row by row, whether XGBoost gave a row one value or
// several.
func flat(t *testing.T, raw json.RawMessage) [][]float64 {
	t.Helper()
	var nested [][]float64
	if err := json.Unmarshal(raw, &nested); err == nil {
		return nested
	}
	var single []float64
	if err := json.Unmarshal(raw, &single); err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, len(single))
	for i, v := range single {
		out[i] = []float64{v}
	}
	return out
}

// TestAnswersEqualXGBoost evaluates every test model, JSON and UBJSON, on every
// test row, one by one and as one batch, and compares each output with XGBoost's
// own predict_proba or predict.
func TestAnswersEqualXGBoost(t *testing.T) {
	as := readAnswers(t)
	if len(as) < 20 {
		t.Fatalf("answers.json has %d models", len(as))
	}
	for _, a := range as {
		for _, file := range a.Files {
			t.Run(file, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join("testdata", file))
				if err != nil {
					t.Fatal(err)
				}
				m, err := xgboost.Open(file, data)
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Outputs()) != len(a.Outputs) {
					t.Fatalf("outputs %v, XGBoost answered %d", m.Outputs(), len(a.Outputs))
				}
				batch := rows(a)
				got, err := m.Predict(context.Background(), batch)
				if err != nil {
					t.Fatal(err)
				}
				for i, item := range batch {
					one, err := m.Predict(context.Background(), []any{item})
					if err != nil {
						t.Fatal(err)
					}
					compare(t, a, one[0].(tensor.Map), i, "single")
				}
				for i, g := range got {
					compare(t, a, g.(tensor.Map), i, "batch")
				}
			})
		}
	}
}

func compare(t *testing.T, a answer, got tensor.Map, row int, how string) {
	t.Helper()
	for name, raw := range a.Outputs {
		want := flat(t, raw)[row]
		g, ok := got[name]
		if !ok {
			t.Fatalf("%s row %d: no output %q", how, row, name)
		}
		if g.Len() != len(want) {
			t.Fatalf("%s row %d: %s has %d values, want %d", how, row, name, g.Len(), len(want))
		}
		for j, w := range want {
			if d := math.Abs(g.At(j) - w); !(d <= 1e-5) {
				t.Errorf("%s row %d: %s[%d] = %v, XGBoost %v (off by %g)", how, row, name, j, g.At(j), w, d)
			}
		}
	}
}

// TestHandWritten: testdata/v3_stump.json is written by hand in the shape XGBoost
// 3.x writes (base_score "[2.5E-1]", size_leaf_vector "1", iteration_indptr), two
// trees whose nodes are not in breadth-first order, a split at its threshold and
// NaN sent both ways; its answers are worked out by hand.
func TestHandWritten(t *testing.T) {
	data, err := os.ReadFile("testdata/v3_stump.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := xgboost.Open("v3_stump.json", data)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	base := -math.Log(3) // logit(0.25)
	tests := []struct {
		row    []float64
		margin float64
	}{
		{[]float64{0.2, 0.5}, base - 1 - 0.5},
		{[]float64{0.7, 3}, base + 1 + 0.25},
		{[]float64{nan, nan}, base + 1 + 0},
		{[]float64{0.5, 1}, base + 1 + 0}, // at the threshold: right, both times
		{[]float64{nan, 0.9}, base + 1 - 0.5},
	}
	for _, tt := range tests {
		v := []float32{float32(tt.row[0]), float32(tt.row[1])}
		out, err := m.Predict(context.Background(), []any{tensor.NewFloat32([]int64{2}, v)})
		if err != nil {
			t.Fatal(err)
		}
		p := out[0].(tensor.Map)["probabilities"]
		want := sigmoid(tt.margin)
		if math.Abs(p.At(1)-want) > 1e-6 || math.Abs(p.At(0)-(1-want)) > 1e-6 {
			t.Errorf("row %v: %v %v, want %v", tt.row, p.At(0), p.At(1), want)
		}
	}
	if f := m.Features(); len(f) != 2 || f[1] != "x1" {
		t.Errorf("features %v", f)
	}
}
