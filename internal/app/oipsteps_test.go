package app_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	pb "github.com/inferd/inferd/gen/inference"
)

// castIris is a version of iris v1's model whose steps take float64s and cast them to
// the model's float32 (cast refuses what a float32 cannot hold), and name the likeliest
// class: what a tensor call sends and gets is the steps' business, not the model's.
const castIris = `backend: onnx
artifact: model.onnx
preprocess:
  - to_tensor: {dtype: float64, shape: [4]}
  - cast: {dtype: float32}
postprocess:
  - argmax
  - label_map: {labels: [setosa, versicolor, virginica]}
`

// TestOIPStepsOnTensors: over /v2 and gRPC, a version's cast, argmax and label_map
// act as they do for /predict: the call sends to_tensor's FP64 tensor (which the
// metadata describes), cast refuses a value out of float32's range as /predict's does,
// naming the input, row and element, and the call gets the class indices label_map
// names for /predict.
func TestOIPStepsOnTensors(t *testing.T) {
	dir := oipRepo(t)
	vdir := filepath.Join(dir, "irisclass", "v1")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	onnx, err := os.ReadFile(filepath.Join(dir, "iris", "v1", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vdir, "model.onnx"), onnx, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vdir, "model.yaml"), []byte(castIris), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startOIP(t, map[string]string{"MODELS_DIR": dir})
	c := grpcClient(t, s)

	md := s.c.Get("/v2/models/irisclass/versions/v1", "k-read")
	if want := `"inputs":[{"datatype":"FP64","name":"input","shape":[-1,4]}],"name":"irisclass","outputs":[{"datatype":"INT64","name":"logits","shape":[-1]}]`; md.Status != 200 || !strings.Contains(string(md.Body), want) {
		t.Fatalf("metadata %d %s, want %s", md.Status, md.Body, want)
	}

	flowers := [][]float64{{5.1, 3.5, 1.4, 0.2}, {6.7, 3.0, 5.2, 2.3}, {6.3, 2.8, 5.1, 1.5}}
	labels := []string{"setosa", "versicolor", "virginica"}
	var rows []string
	var flat []float64
	for _, f := range flowers {
		rows = append(rows, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(f)), ","), "[]"))
		flat = append(flat, f...)
	}
	resp := oipPost(s, "/v2/models/irisclass/versions/v1/infer", "k-all",
		`{"inputs":[{"name":"input","shape":[3,4],"datatype":"FP64","data":[`+strings.Join(rows, ",")+`]}]}`)
	var r oipResponse
	resp.JSON(t, &r)
	if resp.Status != 200 || len(r.Outputs) != 1 || r.Outputs[0].Datatype != "INT64" || !slices.Equal(r.Outputs[0].Shape, []int64{3}) {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	classes := floats(t, r.Outputs[0].Data)
	g, err := c.ModelInfer(withKey(t, "k-all"), &pb.ModelInferRequest{ModelName: "irisclass", ModelVersion: "v1",
		Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "input", Datatype: "FP64", Shape: []int64{3, 4}, Contents: &pb.InferTensorContents{Fp64Contents: flat}}}})
	if err != nil || len(g.Outputs) != 1 || g.Outputs[0].Datatype != "INT64" {
		t.Fatalf("gRPC: %v %v", g, err)
	}
	for i, row := range rows {
		var p struct {
			Result string `json:"result"`
		}
		s.c.Post("/predict", "k-all", `{"model":"irisclass","version":"v1","data":[`+row+`]}`).JSON(t, &p)
		if labels[int(classes[i])] != p.Result || g.Outputs[0].Contents.Int64Contents[i] != int64(classes[i]) {
			t.Errorf("flower %d: /v2 class %v, gRPC %v, /predict %q", i, classes[i], g.Outputs[0].Contents.Int64Contents[i], p.Result)
		}
	}

	const refused = `input "input"[1][2]: 1e+39 is out of range for float32`
	bad := oipPost(s, "/v2/models/irisclass/versions/v1/infer", "k-all",
		`{"inputs":[{"name":"input","shape":[2,4],"datatype":"FP64","data":[5.1,3.5,1.4,0.2,6.7,3.0,1e39,2.3]}]}`)
	if e := bad.OIPError(t); bad.Status != http.StatusBadRequest || e.Code != "invalid_input" || e.Error != refused {
		t.Errorf("%d %+v, want 400 invalid_input %q", bad.Status, e, refused)
	}
	_, err = c.ModelInfer(withKey(t, "k-all"), &pb.ModelInferRequest{ModelName: "irisclass", ModelVersion: "v1",
		Inputs: []*pb.ModelInferRequest_InferInputTensor{{Name: "input", Datatype: "FP64", Shape: []int64{2, 4}, Contents: &pb.InferTensorContents{Fp64Contents: []float64{5.1, 3.5, 1.4, 0.2, 6.7, 3.0, 1e39, 2.3}}}}})
	wantStatus(t, err, codes.InvalidArgument, refused, "invalid_input")
	pred := s.c.Post("/predict", "k-all", `{"model":"irisclass","version":"v1","data":[6.7,3.0,1e39,2.3]}`)
	if p := pred.Problem(t); pred.Status != http.StatusBadRequest || p.Detail != "data[2]: 1e+39 is out of range for float32" {
		t.Errorf("/predict: %d %+v", pred.Status, p)
	}
}
