package app_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pb "github.com/inferd/inferd/gen/inference"
)

// wineAnswers are models/wine/v1's example items and XGBoost's own probabilities
// for them, rounded as the version's round step rounds (4 decimals), in class
// order: tools/build-models.py wrote them from the library's predict_proba.
func wineAnswers(t *testing.T) (items []json.RawMessage, ranked []json.RawMessage, probs [][]float64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "repository", "testdata", "examples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex map[string]map[string]struct {
		Items   []json.RawMessage `json:"items"`
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	w := ex["wine"]["v1"]
	for _, r := range w.Results {
		var top []struct {
			Label string  `json:"label"`
			Score float64 `json:"score"`
		}
		if err := json.Unmarshal(r, &top); err != nil {
			t.Fatal(err)
		}
		p := make([]float64, 3)
		for _, e := range top {
			i, err := strconv.Atoi(strings.TrimPrefix(e.Label, "class_"))
			if err != nil {
				t.Fatal(err)
			}
			p[i] = e.Score
		}
		probs = append(probs, p)
	}
	return w.Items, w.Results, probs
}

// wineRows are the items as rows of 13 float32 values, in the model's order.
func wineRows(t *testing.T, items []json.RawMessage) [][]float32 {
	t.Helper()
	features := []string{"alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium", "total_phenols", "flavanoids",
		"nonflavanoid_phenols", "proanthocyanins", "color_intensity", "hue", "od280_od315", "proline"}
	rows := make([][]float32, len(items))
	for i, it := range items {
		var list []float64
		if err := json.Unmarshal(it, &list); err != nil {
			var named map[string]float64
			if err := json.Unmarshal(it, &named); err != nil {
				t.Fatal(err)
			}
			for _, f := range features {
				list = append(list, named[f])
			}
		}
		for _, v := range list {
			rows[i] = append(rows[i], float32(v))
		}
	}
	return rows
}

func sameProbs(got []float64, want [][]float64) error {
	if len(got) != 3*len(want) {
		return fmt.Errorf("%d values for %d rows", len(got), len(want))
	}
	for i, row := range want {
		for j, w := range row {
			if math.Abs(got[3*i+j]-w) > 1e-9 {
				return fmt.Errorf("row %d class %d: %v, XGBoost %v", i, j, got[3*i+j], w)
			}
		}
	}
	return nil
}

// TestXGBoostOverHTTP serves the example repository and asks models/wine/v1, an
// XGBoost model.json served by the xgboost backend, over a real socket: /predict
// with features by name and in order, /predict/batch, /v2 infer in JSON and with
// the binary tensor data extension, and gRPC's ModelInfer, typed and raw. Every
// answer equals XGBoost's own predict_proba, rounded as the version rounds it.
func TestXGBoostOverHTTP(t *testing.T) {
	s := startOIP(t, nil)
	items, ranked, probs := wineAnswers(t)
	rows := wineRows(t, items)

	t.Run("metadata", func(t *testing.T) {
		var md struct {
			Platform string `json:"platform"`
			Inputs   []struct {
				Name     string  `json:"name"`
				Datatype string  `json:"datatype"`
				Shape    []int64 `json:"shape"`
			} `json:"inputs"`
		}
		s.c.Get("/v2/models/wine", "k-read").JSON(t, &md)
		if md.Platform != "xgboost_json" || len(md.Inputs) != 1 || md.Inputs[0].Datatype != "FP32" || fmt.Sprint(md.Inputs[0].Shape) != "[-1 13]" {
			t.Errorf("metadata %+v", md)
		}
		var cfg struct {
			Platform string `json:"platform"`
			Backend  string `json:"backend"`
		}
		s.c.Get("/v2/models/wine/config", "k-read").JSON(t, &cfg)
		if cfg.Platform != "xgboost_json" || cfg.Backend != "xgboost" {
			t.Errorf("config %+v", cfg)
		}
	})
	t.Run("/predict", func(t *testing.T) {
		for i, it := range items {
			resp := s.c.Post("/predict", "k-predict", `{"model":"wine","data":`+string(it)+`}`)
			var out struct {
				Result json.RawMessage `json:"result"`
			}
			resp.JSON(t, &out)
			if resp.Status != 200 || !sameJSON(t, out.Result, ranked[i]) {
				t.Errorf("item %d: %d %s, XGBoost %s", i, resp.Status, resp.Body, ranked[i])
			}
		}
		body, _ := json.Marshal(map[string]any{"model": "wine", "items": items})
		resp := s.c.Post("/predict/batch", "k-predict", string(body))
		var out struct {
			Results []json.RawMessage `json:"results"`
		}
		resp.JSON(t, &out)
		if resp.Status != 200 || len(out.Results) != len(items) {
			t.Fatalf("batch: %d %s", resp.Status, resp.Body)
		}
		for i, r := range out.Results {
			if !sameJSON(t, r, ranked[i]) {
				t.Errorf("batch item %d: %s, XGBoost %s", i, r, ranked[i])
			}
		}
	})
	var flat []float32
	for _, r := range rows {
		flat = append(flat, r...)
	}
	shape := []int64{int64(len(rows)), 13}
	t.Run("/v2 JSON", func(t *testing.T) {
		data, _ := json.Marshal(flat)
		resp := oipPost(s, "/v2/models/wine/infer", "k-all", fmt.Sprintf(`{"inputs":[{"name":"input","datatype":"FP32","shape":[%d,13],"data":%s}]}`, len(rows), data))
		var r oipResponse
		resp.JSON(t, &r)
		if resp.Status != 200 || len(r.Outputs) != 1 || r.Outputs[0].Name != "probabilities" || fmt.Sprint(r.Outputs[0].Shape) != fmt.Sprint([]int64{shape[0], 3}) {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		if err := sameProbs(floats(t, r.Outputs[0].Data), probs); err != nil {
			t.Error(err)
		}
	})
	t.Run("/v2 binary", func(t *testing.T) {
		raw := fp32(flat...)
		header := fmt.Sprintf(`{"inputs":[{"name":"input","datatype":"FP32","shape":[%d,13],"parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`, len(rows), len(raw))
		r, out := splitBinary(t, postBinary(s, "/v2/models/wine/infer", header, raw))
		if len(r.Outputs) != 1 || r.Outputs[0].Name != "probabilities" {
			t.Fatalf("outputs %+v", r.Outputs)
		}
		if err := sameProbs(decodeRaw(t, r.Outputs[0].Datatype, out), probs); err != nil {
			t.Error(err)
		}
	})
	t.Run("gRPC", func(t *testing.T) {
		c := grpcClient(t, s)
		ctx := withKey(t, "k-all")
		typed, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "wine", Inputs: []*pb.ModelInferRequest_InferInputTensor{
			{Name: "input", Datatype: "FP32", Shape: shape, Contents: &pb.InferTensorContents{Fp32Contents: flat}}}})
		if err != nil {
			t.Fatal(err)
		}
		o := typed.Outputs[0]
		got := o.Contents.Fp64Contents
		if o.Datatype == "FP32" {
			got = nil
			for _, v := range o.Contents.Fp32Contents {
				got = append(got, float64(v))
			}
		}
		if err := sameProbs(got, probs); err != nil {
			t.Errorf("typed: %v", err)
		}
		raw, err := c.ModelInfer(ctx, &pb.ModelInferRequest{ModelName: "wine", Inputs: []*pb.ModelInferRequest_InferInputTensor{
			{Name: "input", Datatype: "FP32", Shape: shape}}, RawInputContents: [][]byte{fp32(flat...)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(raw.RawOutputContents) != 1 {
			t.Fatalf("raw: %v", raw)
		}
		if err := sameProbs(decodeRaw(t, raw.Outputs[0].Datatype, raw.RawOutputContents[0]), probs); err != nil {
			t.Errorf("raw: %v", err)
		}
	})
	t.Run("a row of the wrong width", func(t *testing.T) {
		resp := s.c.Post("/predict", "k-predict", `{"model":"wine","data":[1,2,3]}`)
		if resp.Status != 400 || !strings.Contains(string(resp.Body), "invalid_input") {
			t.Errorf("%d %s", resp.Status, resp.Body)
		}
	})
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// decodeRaw reads little-endian FP32 or FP64 binary data.
func decodeRaw(t *testing.T, datatype string, b []byte) []float64 {
	t.Helper()
	var out []float64
	switch datatype {
	case "FP32":
		for i := 0; i+4 <= len(b); i += 4 {
			out = append(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
		}
	case "FP64":
		for i := 0; i+8 <= len(b); i += 8 {
			out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		}
	default:
		t.Fatalf("datatype %s", datatype)
	}
	return out
}
