package e2etest

import (
	"encoding/json"
	"testing"

	"github.com/inferd/inferd/client"
)

var irisSetosa = `[{"label":"setosa","score":0.9816},{"label":"versicolor","score":0.0184},{"label":"virginica","score":0}]`

func TestPredict(t *testing.T) {
	tg := start(t)
	tests := []struct {
		name        string
		req         client.PredictRequest
		wantVersion string
		wantResult  string
	}{
		{"echo keeps numbers exact",
			client.PredictRequest{Model: "echo", Version: "v1", Data: json.RawMessage(`{"text":"hello","n":12345678901234567890}`)},
			"v1", `{"text":"hello","n":12345678901234567890}`},
		{"no version: routing picks the latest",
			client.PredictRequest{Model: "echo", Data: []any{"a", 1.5, nil}},
			"v2", `["a",1.5,null]`},
		{"null data", client.PredictRequest{Model: "echo", Version: "v1"}, "v1", `null`},
		{"iris by position",
			client.PredictRequest{Model: "iris", Version: "v1", Data: []float64{5.1, 3.5, 1.4, 0.2}},
			"v1", irisSetosa},
		{"iris by name",
			client.PredictRequest{Model: "iris", Version: "v1", Data: map[string]float64{"sepal_length": 5.1, "sepal_width": 3.5, "petal_length": 1.4, "petal_width": 0.2}},
			"v1", irisSetosa},
		{"diabetes",
			client.PredictRequest{Model: "diabetes", Data: json.RawMessage(`{"age":59,"sex":2,"bmi":32.1,"bp":101,"s1":157,"s2":93.2,"s3":38,"s4":4,"s5":4.8598,"s6":87}`)},
			"v1", `205.49`},
		{"digits", client.PredictRequest{Model: "digits", Data: json.RawMessage(digit3)}, "v1", digit3Answer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tg.dev.Predict(ctx(t), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if p.Model != tt.req.Model || p.Version != tt.wantVersion {
				t.Errorf("answered by %s %s, want %s %s", p.Model, p.Version, tt.req.Model, tt.wantVersion)
			}
			sameJSON(t, p.Result, tt.wantResult)
		})
	}
}

// Two held-out images of scikit-learn's digits, 64 pixel intensities each, and the
// answers numpy computed for them (internal/repository/testdata/examples.json).
const (
	digit3       = `[0,0,9,16,10,1,0,0,0,0,8,3,16,4,0,0,0,0,0,5,14,2,0,0,0,0,2,16,15,7,0,0,0,0,0,0,3,15,2,0,0,4,6,0,0,13,7,0,0,6,13,1,5,16,3,0,0,0,10,16,15,5,0,0]`
	digit3Answer = `[{"label":"3","score":0.9997},{"label":"9","score":0.0002},{"label":"5","score":0}]`
	digit0       = `[0,0,2,14,13,3,0,0,0,0,13,13,9,11,0,0,0,0,16,7,0,12,0,0,0,3,16,5,0,10,5,0,0,5,16,1,0,8,5,0,0,3,16,1,0,10,5,0,0,0,16,8,5,14,3,0,0,0,4,16,16,9,1,0]`
	digit0Answer = `[{"label":"0","score":0.9998},{"label":"6","score":0.0002},{"label":"8","score":0}]`
)

func TestPredictBatch(t *testing.T) {
	tg := start(t)
	tests := []struct {
		name        string
		req         client.BatchRequest
		wantVersion string
		wantResults string
	}{
		{"echo in order", client.BatchRequest{Model: "echo", Items: []any{1, "two", nil, json.RawMessage(`12345678901234567890`)}},
			"v2", `[1,"two",null,12345678901234567890]`},
		{"iris by name and by position",
			client.BatchRequest{Model: "iris", Version: "v1", Items: []any{
				map[string]float64{"sepal_length": 6.7, "sepal_width": 3.0, "petal_length": 5.2, "petal_width": 2.3},
				[]float64{5.1, 3.5, 1.4, 0.2},
			}},
			"v1", `[[{"label":"virginica","score":0.9199},{"label":"versicolor","score":0.0801},{"label":"setosa","score":0.0001}],` + irisSetosa + `]`},
		{"diabetes", client.BatchRequest{Model: "diabetes", Items: []any{[]float64{48, 1, 21.6, 87, 183, 103.2, 70, 3, 3.8918, 69}}},
			"v1", `[68.63]`},
		{"digits", client.BatchRequest{Model: "digits", Items: []any{json.RawMessage(digit3), json.RawMessage(digit0)}},
			"v1", `[` + digit3Answer + `,` + digit0Answer + `]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tg.dev.PredictBatch(ctx(t), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if p.Model != tt.req.Model || p.Version != tt.wantVersion {
				t.Errorf("answered by %s %s, want %s %s", p.Model, p.Version, tt.req.Model, tt.wantVersion)
			}
			results, err := json.Marshal(p.Results)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, results, tt.wantResults)
		})
	}
}
