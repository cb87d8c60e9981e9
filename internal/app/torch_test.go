package app_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/testkit"
)

// torchRow is a row of the table tools/build-models.py wrote for digits-cnn: a
// held-out image and torch's own answer for it.
type torchRow struct {
	Image         [][][]float32
	Label         int64
	Probabilities []float64
}

// torchTable reads digits-cnn's rows from the examples the build script wrote.
func torchTable(t *testing.T) []torchRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "repository", "testdata", "examples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex map[string]map[string]json.RawMessage // other models' items are of other shapes
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Items   [][][][]float32 `json:"items"`
		Results []struct {
			Label         int64     `json:"label"`
			Probabilities []float64 `json:"probabilities"`
		} `json:"results"`
	}
	if err := json.Unmarshal(ex["digits-cnn"]["v1"], &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Items) < 10 || len(v.Items) != len(v.Results) {
		t.Fatalf("%d images and %d answers of digits-cnn in examples.json", len(v.Items), len(v.Results))
	}
	rows := make([]torchRow, len(v.Items))
	for i := range rows {
		rows[i] = torchRow{v.Items[i], v.Results[i].Label, v.Results[i].Probabilities}
	}
	return rows
}

// torchEqual says how got differs from torch's answer for row i, or "". It keeps the
// largest difference it has seen in *worst, for the log.
func torchEqual(i int, label int64, probs []float64, want torchRow, worst *float64) string {
	if label != want.Label || len(probs) != len(want.Probabilities) {
		return fmt.Sprintf("row %d: label %d and %d probabilities, torch %d and %d", i, label, len(probs), want.Label, len(want.Probabilities))
	}
	for j, p := range probs {
		d := math.Abs(p - want.Probabilities[j])
		*worst = max(*worst, d)
		if d > 1e-5 {
			return fmt.Sprintf("row %d: probability %d is %v, torch %v", i, j, p, want.Probabilities[j])
		}
	}
	return ""
}

// TestTorchTwoLines: the PyTorch example (digits-cnn, exported by torch.onnx.export)
// served with a model.yaml of two lines, backend and artifact, answers what torch
// answered on every row of its table, within 1e-5, over a real socket: /predict with
// the image as nested arrays, /predict/batch, /v2 infer and gRPC ModelInfer with the
// model's own tensors. Metadata shows the step that reads the data and the model's
// tensors; data of the wrong shape or type is a 400 naming the place.
func TestTorchTwoLines(t *testing.T) {
	rows := torchTable(t)
	dir := t.TempDir()
	testkit.CopyDir(t, filepath.Join(repoModels(t), "digits-cnn"), filepath.Join(dir, "digits-cnn"))
	if err := os.WriteFile(filepath.Join(dir, "digits-cnn", "v1", "model.yaml"), []byte("backend: onnx\nartifact: model.onnx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "API_KEYS": oipKeys}, true)

	type result struct {
		Label         int64     `json:"label"`
		Probabilities []float64 `json:"probabilities"`
	}
	t.Run("predict", func(t *testing.T) {
		var worst float64
		defer func() { t.Logf("largest difference from torch: %g", worst) }()
		for i, r := range rows {
			data, _ := json.Marshal(r.Image)
			resp := s.c.Post("/predict", "k-all", `{"model":"digits-cnn","data":`+string(data)+`}`)
			var p struct {
				Result result `json:"result"`
			}
			resp.JSON(t, &p)
			if resp.Status != http.StatusOK {
				t.Fatalf("row %d: %d %s", i, resp.Status, resp.Body)
			}
			if d := torchEqual(i, p.Result.Label, p.Result.Probabilities, r, &worst); d != "" {
				t.Error(d)
			}
		}
	})
	t.Run("predict batch", func(t *testing.T) {
		var worst float64
		defer func() { t.Logf("largest difference from torch: %g", worst) }()
		items := make([][][][]float32, len(rows))
		for i, r := range rows {
			items[i] = r.Image
		}
		body, _ := json.Marshal(map[string]any{"model": "digits-cnn", "version": "v1", "items": items})
		resp := s.c.Post("/predict/batch", "k-all", string(body))
		var p struct {
			Results []result `json:"results"`
		}
		resp.JSON(t, &p)
		if resp.Status != http.StatusOK || len(p.Results) != len(rows) {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		for i, r := range rows {
			if d := torchEqual(i, p.Results[i].Label, p.Results[i].Probabilities, r, &worst); d != "" {
				t.Error(d)
			}
		}
	})

	var flat []float32
	for _, r := range rows {
		for _, line := range r.Image[0] {
			flat = append(flat, line...)
		}
	}
	shape := []int64{int64(len(rows)), 1, 8, 8}
	t.Run("v2", func(t *testing.T) {
		var worst float64
		defer func() { t.Logf("largest difference from torch: %g", worst) }()
		data, _ := json.Marshal(flat)
		out := restInfer(t, s, "/v2/models/digits-cnn/versions/v1/infer",
			fmt.Sprintf(`{"inputs":[{"name":"image","shape":[%d,1,8,8],"datatype":"FP32","data":%s}]}`, len(rows), data))
		labels, probs := out["label"], out["probabilities"]
		if len(labels) != len(rows) || len(probs) != 10*len(rows) {
			t.Fatalf("outputs %v", out)
		}
		for i, r := range rows {
			if d := torchEqual(i, int64(labels[i]), probs[10*i:10*i+10], r, &worst); d != "" {
				t.Error(d)
			}
		}
	})
	t.Run("gRPC", func(t *testing.T) {
		var worst float64
		defer func() { t.Logf("largest difference from torch: %g", worst) }()
		g, err := grpcClient(t, s).ModelInfer(withKey(t, "k-all"), &pb.ModelInferRequest{ModelName: "digits-cnn", ModelVersion: "v1",
			Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "image", Datatype: "FP32", Shape: shape, Contents: &pb.InferTensorContents{Fp32Contents: flat}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Outputs) != 2 || g.Outputs[0].Name != "label" || g.Outputs[0].Datatype != "INT64" || g.Outputs[1].Name != "probabilities" || g.Outputs[1].Datatype != "FP32" ||
			!slices.Equal(g.Outputs[1].Shape, []int64{int64(len(rows)), 10}) {
			t.Fatalf("outputs %v", g.Outputs)
		}
		labels, p32 := g.Outputs[0].Contents.Int64Contents, g.Outputs[1].Contents.Fp32Contents
		for i, r := range rows {
			probs := make([]float64, 10)
			for j := range probs {
				probs[j] = float64(p32[10*i+j])
			}
			if d := torchEqual(i, labels[i], probs, r, &worst); d != "" {
				t.Error(d)
			}
		}
	})

	t.Run("metadata", func(t *testing.T) {
		md := s.c.Get("/models/digits-cnn/v1", "k-read")
		for _, want := range []string{
			`"preprocess":[{"name":"to_tensor","params":{"dtype":"float32","shape":[1,8,8]}}]`,
			`"postprocess":[]`,
			`"inputs":[{"dtype":"float32","name":"image","shape":[-1,1,8,8]}]`,
		} {
			if md.Status != http.StatusOK || !strings.Contains(string(md.Body), want) {
				t.Errorf("metadata %d %s\nwant %s in it", md.Status, md.Body, want)
			}
		}
		v2 := s.c.Get("/v2/models/digits-cnn/versions/v1", "k-read")
		if want := `"inputs":[{"datatype":"FP32","name":"image","shape":[-1,1,8,8]}],"name":"digits-cnn","outputs":[{"datatype":"INT64","name":"label","shape":[-1]},{"datatype":"FP32","name":"probabilities","shape":[-1,10]}]`; v2.Status != http.StatusOK || !strings.Contains(string(v2.Body), want) {
			t.Errorf("/v2 metadata %d %s\nwant %s in it", v2.Status, v2.Body, want)
		}
	})

	t.Run("bad data", func(t *testing.T) {
		image, _ := json.Marshal(rows[0].Image)
		bad := strings.Replace(string(image), "[[[0,", `[[["0",`, 1) // a border pixel, 0 in every image
		tests := []struct {
			name, body, detail string
		}{
			{"no channel", `{"model":"digits-cnn","data":` + string(image[1:len(image)-1]) + `}`, "data: expected 1 array of shape [8,8], got 8"},
			{"a string", `{"model":"digits-cnn","data":` + bad + `}`, "data[0][0][0]: expected a number, got a string"},
			{"an object", `{"model":"digits-cnn","data":{"image":` + string(image) + `}}`, "data: expected an array of 1 array of shape [8,8], got an object"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp := s.c.Post("/predict", "k-all", tt.body)
				if p := resp.Problem(t); resp.Status != http.StatusBadRequest || p.Code != "invalid_input" || p.Detail != tt.detail {
					t.Errorf("%d %+v, want 400 invalid_input %q", resp.Status, p, tt.detail)
				}
			})
		}
	})
}
