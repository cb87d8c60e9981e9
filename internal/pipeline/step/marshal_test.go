package step

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/inferd/inferd/internal/tensor"
)

// TestResultsAreWhatJSONMarshalWrites: the pipeline writes the catalogue's results by
// their own MarshalJSON, without encoding/json's second pass, which compacts and
// HTML-escapes; so each must already write exactly what json.Marshal would.
func TestResultsAreWhatJSONMarshalWrites(t *testing.T) {
	tricky := []string{`<script>&"quotes"`, "line\u2028separator", "é ü 😀", `back\slash`, ""}
	tests := map[string]json.Marshaler{
		"ranked, labelled": &ranked{labelled: true, bits: 32, float: true, entries: []rankedEntry{
			{label: tricky[0], score: 0.5}, {label: tricky[1], score: 1e-7}, {label: tricky[2], score: 0.1}}},
		"ranked, indexed, integer scores": &ranked{entries: []rankedEntry{{index: 2, score: 7}, {index: 0, score: -1}}},
		"labels, a scalar":                &labels{values: tricky[3:4]},
		"labels, nested":                  &labels{shape: []int64{2, 2}, values: []string{tricky[0], tricky[1], tricky[2], tricky[4]}},
		"float32 tensor":                  tensor.NewFloat(tensor.Float32, []int64{2, 2}, []float64{0.1, -3e38, 1e-45, 0}),
		"float64 tensor":                  tensor.NewFloat(tensor.Float64, []int64{3}, []float64{0.1, 1.7976931348623157e308, -0}),
		"int64 tensor, a scalar":          tensor.NewInt(tensor.Int64, nil, []int64{9007199254740993}),
		"bool tensor":                     tensor.NewInt(tensor.Bool, []int64{2}, []int64{1, 0}),
	}
	// top_k's own list carries the labels quoted once, when the step was built.
	step, _, err := buildTopK(&TopKParams{K: 3, Labels: tricky[:3]}, Sig{Kind: KindTensor, DType: tensor.Float32, Shape: []int64{3}}, "postprocess[0]")
	if err != nil {
		t.Fatal(err)
	}
	listed, err := step.Apply(context.Background(), []any{tensor.NewFloat(tensor.Float32, []int64{3}, []float64{0.5, 1e-7, 0.1})})
	if err != nil {
		t.Fatal(err)
	}
	tests["ranked, labelled, as top_k lists them"] = listed[0].(*ranked)
	for name, v := range tests {
		t.Run(name, func(t *testing.T) {
			own, err := v.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(own) != string(want) {
				t.Fatalf("MarshalJSON wrote %s; json.Marshal writes %s", own, want)
			}
		})
	}
}
