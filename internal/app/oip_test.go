package app_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testkit"
)

// The Open Inference Protocol as published: the REST API in
// https://github.com/kserve/open-inference-protocol/blob/main/specification/protocol/inference_rest.md
// (also https://kserve.github.io/website/docs/concepts/architecture/data-plane/v2-protocol)
// and Triton's binary tensor data extension in
// https://github.com/triton-inference-server/server/blob/main/docs/protocol/extension_binary_data.md.
// Every response below comes through apitest, which validates it against openapi.yaml.

// oipKeys: one key per scope, to show which scope each operation needs, and an admin's.
const oipKeys = "k-all:predict+read_models,k-predict:predict,k-read:read_models,k-admin:predict+read_models+admin"

// oipRepo is the example repository plus a version that fails to load.
func oipRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	broken := filepath.Join(dir, "broken", "v1")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "model.yaml"), []byte("backend: onnx\nartifact: missing.onnx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func startOIP(t *testing.T, extra map[string]string) *started {
	t.Helper()
	// READY_ALLOW_FAILED: the broken version must not hold readiness back where /ready
	// waits for failed versions.
	env := map[string]string{"MODELS_DIR": oipRepo(t), "RATE_LIMIT_RPS": "0", "API_KEYS": oipKeys, "READY_ALLOW_FAILED": "true"}
	for k, v := range extra {
		env[k] = v
	}
	return startApp(t, env, true)
}

// oipResponse is the protocol's inference response.
type oipResponse struct {
	ModelName    string `json:"model_name"`
	ModelVersion string `json:"model_version"`
	ID           string `json:"id"`
	Outputs      []struct {
		Name       string          `json:"name"`
		Datatype   string          `json:"datatype"`
		Shape      []int64         `json:"shape"`
		Parameters map[string]any  `json:"parameters"`
		Data       json.RawMessage `json:"data"`
	} `json:"outputs"`
}

type oipError struct {
	Error     string `json:"error"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
}

func oipPost(s *started, path, key, body string) *apitest.Response {
	return s.c.Do(s.c.NewRequest(http.MethodPost, path, key, body))
}

func floats(t *testing.T, raw json.RawMessage) []float64 {
	t.Helper()
	var out []float64
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("data %s: %v", raw, err)
	}
	return out
}

// TestOIP runs the protocol's checks below on one server of the example repository
// (plus a version that fails to load), MAX_REQUEST_BYTES at 64 KiB.
func TestOIP(t *testing.T) {
	s := startOIP(t, map[string]string{"MAX_REQUEST_BYTES": "65536"})
	for _, tt := range []struct {
		name string
		run  func(*testing.T, *started)
	}{{"endpoints", oipEndpoints}, {"iris", oipInferIris}, {"binary", oipBinary}, {"errors", oipErrors}, {"Go SDK", oipGoSDK}} {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, s) })
	}
}

// oipEndpoints: every endpoint of the protocol answers as its description says:
// server metadata with its extensions, liveness and readiness without a key, model
// metadata with -1 for the batch dimension, model readiness with and without a version.
func oipEndpoints(t *testing.T, s *started) {
	tests := []struct {
		path   string
		key    string
		status int
		want   []string // substrings of the body
	}{
		{"/v2", "k-read", 200, []string{`"name":"inferd"`, `"extensions":["binary_tensor_data","model_configuration","statistics","model_repository"]`}},
		{"/v2/health/live", "", 200, []string{`{"live":true}`}},
		{"/v2/health/ready", "", 200, []string{`{"ready":true}`}},
		// Routed 90/10 to v1 and v2, whose outputs differ; their input is the same.
		{"/v2/models/iris", "k-read", 200, []string{`"name":"iris"`, `"versions":["v1","v2"]`, `"platform":"onnxruntime_onnx"`, `"inputs":[{"datatype":"FP32","name":"input","shape":[-1,4]}]`}},
		// The tensors the steps leave: softmax's and round's probabilities (FP64) under
		// the name of the model output they come from.
		{"/v2/models/iris/versions/v1", "k-read", 200, []string{`"outputs":[{"datatype":"FP64","name":"logits","shape":[-1,3]}]`}},
		{"/v2/models/iris/versions/v2", "k-read", 200, []string{`"name":"iris"`, `"inputs":[{"datatype":"FP32","name":"input","shape":[-1,4]}]`,
			`"outputs":[{"datatype":"FP64","name":"probabilities","shape":[-1,3]}]`}},
		{"/v2/models/diabetes/versions/v1", "k-read", 200, []string{`"inputs":[{"datatype":"FP64","name":"input","shape":[-1,10]}]`,
			`"outputs":[{"datatype":"FP64","name":"prediction","shape":[-1]}]`}},
		{"/v2/models/digits/versions/v1", "k-read", 200, []string{`"inputs":[{"datatype":"FP32","name":"input","shape":[-1,64]}]`}},
		{"/v2/models/echo/versions/v1", "k-read", 200, []string{`"platform":"echo"`, `"inputs":[]`}},
		{"/v2/models/iris/ready", "k-read", 200, []string{`"name":"iris"`, `"ready":true`}},
		{"/v2/models/iris/versions/v1/ready", "k-read", 200, []string{`{"name":"iris","ready":true,"version":"v1"}`}},
		{"/v2/models/broken/versions/v1/ready", "k-read", 503, []string{`"ready":false`}},
		{"/v2/models/broken/ready", "k-read", 503, []string{`"ready":false`}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := s.c.Get(tt.path, tt.key)
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(resp.Body), w) {
					t.Errorf("body %s lacks %s", resp.Body, w)
				}
			}
		})
	}
}

// oipInferIris: iris v1 through /v2 answers what its steps make of the model's
// logits, the probabilities /predict ranks (softmax, rounded to 4 decimals): each
// label's score is that class's value; a [2,4] batch gets [2,3]; the request id comes
// back; without a version the routing rule picks one and model_version names it.
func oipInferIris(t *testing.T, s *started) {
	pred := s.c.Post("/predict", "k-all", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`)
	var p struct {
		Result []struct {
			Label string  `json:"label"`
			Score float64 `json:"score"`
		} `json:"result"`
	}
	pred.JSON(t, &p)
	labels := []string{"setosa", "versicolor", "virginica"}

	t.Run("one flower", func(t *testing.T) {
		resp := oipPost(s, "/v2/models/iris/versions/v1/infer", "k-all",
			`{"id":"flower-1","inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}]}`)
		if resp.Status != 200 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		var r oipResponse
		resp.JSON(t, &r)
		if r.ModelName != "iris" || r.ModelVersion != "v1" || r.ID != "flower-1" || len(r.Outputs) != 1 {
			t.Fatalf("response %s", resp.Body)
		}
		o := r.Outputs[0]
		if o.Name != "logits" || o.Datatype != "FP64" || !slices.Equal(o.Shape, []int64{1, 3}) {
			t.Fatalf("output %s %s %v", o.Name, o.Datatype, o.Shape)
		}
		probs := floats(t, o.Data)
		for _, res := range p.Result {
			if i := slices.Index(labels, res.Label); probs[i] != res.Score {
				t.Errorf("%s: /v2 %v, /predict %v", res.Label, probs[i], res.Score)
			}
		}
	})
	t.Run("batch of two", func(t *testing.T) {
		resp := oipPost(s, "/v2/models/iris/versions/v1/infer", "k-all",
			`{"inputs":[{"name":"input","shape":[2,4],"datatype":"FP32","data":[[5.1,3.5,1.4,0.2],[6.7,3.0,5.2,2.3]]}]}`)
		var r oipResponse
		resp.JSON(t, &r)
		if resp.Status != 200 || !slices.Equal(r.Outputs[0].Shape, []int64{2, 3}) || len(floats(t, r.Outputs[0].Data)) != 6 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		if first := floats(t, r.Outputs[0].Data)[:3]; first[0] != p.Result[0].Score {
			t.Errorf("row 0: setosa %v, /predict %v", first[0], p.Result[0].Score)
		}
	})
	t.Run("routed", func(t *testing.T) {
		resp := oipPost(s, "/v2/models/iris/infer", "k-all",
			`{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}]}`)
		var r oipResponse
		resp.JSON(t, &r)
		if resp.Status != 200 || r.ModelVersion != "v1" && r.ModelVersion != "v2" {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
	})
}

// oipConcurrent sends n single-row infer calls at once and returns each one's data.
func oipConcurrent(t *testing.T, s *started, path string, n int, row func(i int) string) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, path, "k-all", row(i)))
			if err != nil || resp.Status != 200 {
				t.Errorf("call %d: %v %v", i, err, resp)
				return
			}
			var r oipResponse
			if err := json.Unmarshal(resp.Body, &r); err != nil || len(r.Outputs) != 1 || r.ID != strconv.Itoa(i) {
				t.Errorf("call %d: %s", i, resp.Body)
				return
			}
			out[i] = r.Outputs[0].Data
		}()
	}
	wg.Wait()
	return out
}

// TestOIPInferBatching: 100 concurrent single-row calls to iris v1 (dynamic batching
// on) each get their own row, the one a single call of all rows gives; concurrent
// calls to digits, which batches as shipped, share model calls (inferd_batch_size
// sees calls of more than one item).
func TestOIPInferBatching(t *testing.T) {
	dir := batchingRepo(t)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "API_KEYS": oipKeys}, true)

	rows := make([]string, 100)
	for i := range rows {
		rows[i] = fmt.Sprintf("[%d.%d,3.1,%d.2,%d.4]", 4+i%4, i%10, 1+i%6, i%3)
	}
	all := oipPost(s, "/v2/models/iris/versions/v1/infer", "k-all",
		fmt.Sprintf(`{"inputs":[{"name":"input","shape":[100,4],"datatype":"FP32","data":[%s]}]}`, strings.Join(rows, ",")))
	var whole oipResponse
	all.JSON(t, &whole)
	want := floats(t, whole.Outputs[0].Data)
	got := oipConcurrent(t, s, "/v2/models/iris/versions/v1/infer", 100, func(i int) string {
		return fmt.Sprintf(`{"id":"%d","inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":%s}]}`, i, rows[i])
	})
	for i, data := range got {
		if data == nil {
			continue
		}
		row := floats(t, data)
		for j := range row {
			// Rounded to 4 decimals by the version's steps: a row whose model call
			// ran in a batch of another size may round one step apart.
			if math.Abs(row[j]-want[3*i+j]) > 1e-4+1e-9 {
				t.Fatalf("call %d got %v; its row of the whole batch is %v", i, row, want[3*i:3*i+3])
			}
		}
	}

	pixels := make([]string, 64)
	for i := range pixels {
		pixels[i] = strconv.Itoa(i % 17)
	}
	for range 5 {
		oipConcurrent(t, s, "/v2/models/digits/versions/v1/infer", 32, func(i int) string {
			return fmt.Sprintf(`{"id":"%d","inputs":[{"name":"input","shape":[1,64],"datatype":"FP32","data":[%s]}]}`, i, strings.Join(pixels, ","))
		})
		if count, ones, _ := histogram(t, s, "inferd_batch_size", "digits", "1"); count > ones {
			break
		}
	}
	count, ones, ok := histogram(t, s, "inferd_batch_size", "digits", "1")
	if !ok || count == ones {
		t.Errorf("digits: %d model calls, %d of one item; want calls of more than one", count, ones)
	}
	metrics := string(s.c.Get("/metrics", "").Body)
	for _, w := range []string{`inferd_http_requests_total{code="200",operation="oipInferVersion"}`, `inferd_predictions_total{mode="infer",model="digits",outcome="success",version="v1"}`} {
		if !strings.Contains(metrics, w) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
}

// binaryBody builds a binary data extension request: the JSON header, then raw bytes.
func binaryBody(header string, raw ...[]byte) []byte {
	return append([]byte(header), bytes.Join(raw, nil)...)
}

func fp32(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func byteElems(es ...string) []byte {
	var b []byte
	for _, e := range es {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

func postBinary(s *started, path string, header string, raw ...[]byte) *apitest.Response {
	req := s.c.NewRequest(http.MethodPost, path, "k-all", binaryBody(header, raw...))
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(len(header)))
	return s.c.Do(req)
}

// splitBinary reads a binary response: its JSON header and the bytes after it.
func splitBinary(t *testing.T, resp *apitest.Response) (oipResponse, []byte) {
	t.Helper()
	if resp.Status != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("%d %s %s", resp.Status, resp.Header.Get("Content-Type"), resp.Body)
	}
	n, err := strconv.Atoi(resp.Header.Get("Inference-Header-Content-Length"))
	if err != nil || n > len(resp.Body) {
		t.Fatalf("Inference-Header-Content-Length %q of a %d-byte body", resp.Header.Get("Inference-Header-Content-Length"), len(resp.Body))
	}
	var r oipResponse
	if err := json.Unmarshal(resp.Body[:n], &r); err != nil {
		t.Fatalf("header %s: %v", resp.Body[:n], err)
	}
	return r, resp.Body[n:]
}

// oipBinary: the binary data extension both ways. FP32 and BYTES tensors sent as
// raw bytes come back from echo byte for byte when asked for as binary (per output, or
// all with binary_data_output), and as JSON otherwise, save BYTES that are not UTF-8
// text, which JSON cannot carry unchanged (400, telling the client to ask for binary
// data); iris takes a binary input too.
func oipBinary(t *testing.T, s *started) {
	f := fp32(1.5, -2.25, 3.4028235e38, 1e-45)
	bs := byteElems("hello", "", "wörld\x00\xff")
	header := fmt.Sprintf(`{"inputs":[{"name":"f","shape":[2,2],"datatype":"FP32","parameters":{"binary_data_size":%d}},`+
		`{"name":"s","shape":[3],"datatype":"BYTES","parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`, len(f), len(bs))

	t.Run("round trip", func(t *testing.T) {
		r, raw := splitBinary(t, postBinary(s, "/v2/models/echo/versions/v1/infer", header, f, bs))
		if len(r.Outputs) != 2 || r.Outputs[0].Name != "f" || r.Outputs[1].Name != "s" {
			t.Fatalf("outputs %+v", r.Outputs)
		}
		if !bytes.Equal(raw, append(slices.Clone(f), bs...)) {
			t.Errorf("binary outputs %x, sent %x %x", raw, f, bs)
		}
		if r.Outputs[0].Parameters["binary_data_size"] != float64(len(f)) || r.Outputs[1].Parameters["binary_data_size"] != float64(len(bs)) {
			t.Errorf("binary_data_size %v %v", r.Outputs[0].Parameters, r.Outputs[1].Parameters)
		}
	})
	t.Run("one output binary, one JSON", func(t *testing.T) {
		text := byteElems("hello", "", "wörld\x00")
		h := fmt.Sprintf(`{"inputs":[{"name":"f","shape":[2,2],"datatype":"FP32","parameters":{"binary_data_size":%d}},`+
			`{"name":"s","shape":[3],"datatype":"BYTES","parameters":{"binary_data_size":%d}}],"outputs":[{"name":"s"},{"name":"f","parameters":{"binary_data":true}}]}`, len(f), len(text))
		r, raw := splitBinary(t, postBinary(s, "/v2/models/echo/versions/v1/infer", h, f, text))
		if r.Outputs[0].Name != "s" || string(r.Outputs[0].Data) != `["hello","","wörld\u0000"]` || !bytes.Equal(raw, f) {
			t.Errorf("outputs %s %s, binary %x", r.Outputs[0].Name, r.Outputs[0].Data, raw)
		}
	})
	t.Run("BYTES that are not text, as JSON", func(t *testing.T) {
		h := strings.Replace(header, `"parameters":{"binary_data_output":true}`, `"outputs":[{"name":"s"},{"name":"f","parameters":{"binary_data":true}}]`, 1)
		resp := postBinary(s, "/v2/models/echo/versions/v1/infer", h, f, bs)
		var e oipError
		resp.JSON(t, &e)
		if resp.Status != http.StatusBadRequest || e.Code != "invalid_input" || !strings.Contains(e.Error, `output "s" is BYTES, and its element 2 is not UTF-8 text`) ||
			!strings.Contains(e.Error, `"outputs":[{"name":"s","parameters":{"binary_data":true}}]`) {
			t.Errorf("%d %s; want 400 invalid_input asking for binary data", resp.Status, resp.Body)
		}
	})
	t.Run("binary in, JSON out", func(t *testing.T) {
		in := fp32(5.1, 3.5, 1.4, 0.2)
		resp := postBinary(s, "/v2/models/iris/versions/v1/infer",
			fmt.Sprintf(`{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","parameters":{"binary_data_size":%d}}]}`, len(in)), in)
		js := oipPost(s, "/v2/models/iris/versions/v1/infer", "k-all", `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}]}`)
		if resp.Status != 200 || resp.Header.Get("Content-Type") != "application/json" || string(resp.Body) != string(js.Body) {
			t.Errorf("binary input: %d %s; JSON input: %s", resp.Status, resp.Body, js.Body)
		}
	})
}

// oipErrors: the protocol's error shape, {"error": ...} (with inferd's code and
// request id), for every refusal: malformed requests (400, saying which input and what
// was expected), unknown models and versions (404), a version that failed to load
// (503), keys (401, 403), the body limit (413), the media type (415) and the rate
// limit (429). Never a 500.
func oipErrors(t *testing.T, s *started) {
	const infer = "/v2/models/iris/versions/v1/infer"
	in := func(shape, datatype, data string) string {
		return fmt.Sprintf(`{"inputs":[{"name":"input","shape":%s,"datatype":"%s","data":%s}]}`, shape, datatype, data)
	}
	echo := func(shape, datatype, data string) string {
		return fmt.Sprintf(`{"inputs":[{"name":"x","shape":%s,"datatype":"%s","data":%s}]}`, shape, datatype, data)
	}
	tests := []struct {
		name, path, body string
		want             string // in the error message
	}{
		{"not JSON", infer, `{"inputs":`, "not valid JSON"},
		{"not an object", infer, `[1,2]`, "must be a JSON object"},
		{"no inputs", infer, `{"id":"x"}`, "inputs is missing"},
		{"empty inputs", infer, `{"inputs":[]}`, "inputs is empty"},
		{"inputs not an array", infer, `{"inputs":{"name":"input"}}`, "inputs must be an array"},
		{"input not an object", infer, `{"inputs":[7]}`, "inputs[0] must be an object"},
		{"no name", infer, `{"inputs":[{"shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}`, "inputs[0].name"},
		{"number beyond a double", infer, `{"data":[1e400],"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}`, "the number 1e400 is beyond the range of a double"},
		{"number beyond a double in data", infer, in("[1,4]", "FP64", "[1,2,3,1e400]"), "1e400 is out of the range of FP64"},
		{"id null", infer, `{"id":null,"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}`, "id must be a string"},
		{"id not a string", infer, `{"id":5,"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}`, "id must be a string"},
		{"unknown datatype", infer, in("[1,4]", "FLOAT", "[1,2,3,4]"), `datatype "FLOAT" is not one of`},
		{"wrong datatype", infer, in("[1,4]", "FP64", "[1,2,3,4]"), `input "input" is FP64; the model takes FP32`},
		{"unknown input name", infer, `{"inputs":[{"name":"features","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}`, `the model has no input "features"; its inputs are input`},
		{"input twice", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]},{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}`, `input "input" is sent twice`},
		{"wrong shape", infer, in("[1,3]", "FP32", "[1,2,3]"), `has shape [1,3]; the model takes [-1,4]`},
		{"wrong rank", infer, in("[4]", "FP32", "[1,2,3,4]"), `has shape [4]; the model takes [-1,4]`},
		{"empty batch", infer, in("[0,4]", "FP32", "[]"), "batch dimension must be at least 1"},
		{"too few values", infer, in("[1,4]", "FP32", "[1,2,3]"), "data holds 3 values; shape [1,4] needs 4"},
		{"too many values", infer, in("[1,4]", "FP32", "[1,2,3,4,5]"), "more than the 4 values of shape [1,4]"},
		{"negative dimension", infer, in("[-1,4]", "FP32", "[1,2,3,4]"), "shape[0] is -1; dimensions of a request cannot be negative"},
		{"fractional dimension", infer, in("[1.5,4]", "FP32", "[1,2,3,4]"), "dimensions are whole numbers"},
		{"dimension a string", infer, in(`["1",4]`, "FP32", "[1,2,3,4]"), `shape[0] is "1", a string; dimensions are whole numbers, written without quotes, fraction or exponent`},
		{"dimension null", infer, in("[null,4]", "FP32", "[1,2,3,4]"), "shape[0] is null; dimensions are whole numbers"},
		{"dimension 4.0", infer, in("[1,4.0]", "FP32", "[1,2,3,4]"), "shape[1] is 4.0, a number with a fraction or exponent"},
		{"member named twice", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4],"datatype":"FP64"}]}`, `duplicate member "datatype" in inputs[0]`},
		{"output asked for twice", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}],"outputs":[{"name":"logits"},{"name":"logits"}]}`, `outputs[1] asks for output "logits", as outputs[0] does`},
		{"shape product overflows", infer, in("[4294967296,4294967296,4]", "FP32", "[1,2,3,4]"), "more elements than any request can carry"},
		{"huge shape, little data", infer, in("[1000000000,4]", "FP32", "[1,2,3,4]"), "data holds 4 values; shape [1000000000,4] needs 4000000000"},
		{"shape not an array", infer, in(`"1x4"`, "FP32", "[1,2,3,4]"), "shape must be an array"},
		{"too many dimensions", infer, in("["+strings.Repeat("1,", 32)+"1]", "FP32", "[1]"), "at most 32 are allowed"},
		{"string among numbers", infer, in("[1,4]", "FP32", `[1,"2",3,4]`), `data[1]: "2" is not a number`},
		{"null among numbers", infer, in("[1,4]", "FP32", `[1,null,3,4]`), "data[1]: null is not a number"},
		{"object in data", infer, in("[1,4]", "FP32", `[{"a":1},2,3,4]`), "data holds an object"},
		{"data not an array", infer, in("[1,4]", "FP32", `5`), "data must be an array"},
		{"no data", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32"}]}`, "has no data"},
		{"FP32 out of range", infer, in("[1,4]", "FP32", "[1e39,2,3,4]"), "1e39 is out of the range of FP32"},
		{"FP16 out of range", "/v2/models/echo/versions/v1/infer", echo("[1]", "FP16", "[65520]"), "65520 is out of the range of FP16"},
		{"INT8 overflow", "/v2/models/echo/versions/v1/infer", echo("[2]", "INT8", "[1,128]"), "data[1]: 128 is not a whole number in the range of INT8"},
		{"UINT8 negative", "/v2/models/echo/versions/v1/infer", echo("[1]", "UINT8", "[-1]"), "-1 is not a whole number in the range of UINT8"},
		{"INT32 fraction", "/v2/models/echo/versions/v1/infer", echo("[1]", "INT32", "[1.5]"), "1.5 is not a whole number"},
		{"INT64 overflow", "/v2/models/echo/versions/v1/infer", echo("[1]", "INT64", "[9223372036854775808]"), "not a whole number in the range of INT64"},
		{"BOOL not a boolean", "/v2/models/echo/versions/v1/infer", echo("[1]", "BOOL", "[1]"), "1 is not true or false"},
		{"BYTES not strings", "/v2/models/echo/versions/v1/infer", echo("[2]", "BYTES", `["a",2]`), "2 is not a string; BYTES elements are strings"},
		{"unknown output", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}],"outputs":[{"name":"probabilities"}]}`, `the model has no output "probabilities"; its outputs are logits`},
		{"binary_data not a boolean", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}],"outputs":[{"name":"logits","parameters":{"binary_data":"yes"}}]}`, "binary_data must be true or false"},
		{"binary size without binary", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","parameters":{"binary_data_size":16}}]}`, "only 0 bytes of binary data are left"},
		{"data and binary size", infer, `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4],"parameters":{"binary_data_size":0}}]}`, "has both data and parameters.binary_data_size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := oipPost(s, tt.path, "k-all", tt.body)
			var e oipError
			resp.JSON(t, &e)
			if resp.Status != http.StatusBadRequest || !strings.Contains(e.Error, tt.want) || e.RequestID == "" || e.Code == "" {
				t.Errorf("%d %s; want 400 with %q", resp.Status, resp.Body, tt.want)
			}
		})
	}

	binaryTests := []struct {
		name      string
		header    string
		headerLen int // -1: the header's
		raw       []byte
		want      string
	}{
		{"header length past the body", `{"inputs":[]}`, 99, nil, "Inference-Header-Content-Length is 99, but the body holds 13 bytes"},
		{"header length cuts the JSON", `{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`, 20, fp32(1), "not valid JSON"},
		{"binary size off the shape", `{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`, -1, fp32(1), "binary_data_size is 4 bytes; shape [2] of FP32 takes 4-byte elements, so 2 values need 8 bytes"},
		{"bytes left over", `{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`, -1, fp32(1, 2), "4 bytes of binary data follow the last input's"},
		{"BYTES length past the end", `{"inputs":[{"name":"x","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":6}}]}`, -1, []byte{9, 0, 0, 0, 'a', 'b'}, "BYTES element 0 is 9 bytes long, but only 2 bytes are left"},
		{"BOOL not 0 or 1", `{"inputs":[{"name":"x","shape":[1],"datatype":"BOOL","parameters":{"binary_data_size":1}}]}`, -1, []byte{2}, "BOOL elements are 0 or 1"},
		{"binary size negative", `{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","parameters":{"binary_data_size":-4}}]}`, -1, fp32(1), "binary_data_size must be a whole number"},
	}
	for _, tt := range binaryTests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.headerLen
			if n < 0 {
				n = len(tt.header)
			}
			req := s.c.NewRequest(http.MethodPost, "/v2/models/echo/versions/v1/infer", "k-all", binaryBody(tt.header, tt.raw))
			req.Header.Set("Content-Type", "application/octet-stream")
			req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(n))
			resp := s.c.Do(req)
			var e oipError
			resp.JSON(t, &e)
			if resp.Status != http.StatusBadRequest || !strings.Contains(e.Error, tt.want) {
				t.Errorf("%d %s; want 400 with %q", resp.Status, resp.Body, tt.want)
			}
		})
	}

	ok := `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]}`
	statusTests := []struct {
		name, method, path, key, body string
		status                        int
		code                          string
	}{
		{"unknown model", "POST", "/v2/models/resnet/infer", "k-all", ok, 404, "model_not_found"},
		{"unknown version", "POST", "/v2/models/iris/versions/v9/infer", "k-all", ok, 404, "version_not_found"},
		{"unknown model metadata", "GET", "/v2/models/resnet", "k-all", "", 404, "model_not_found"},
		{"unknown version metadata", "GET", "/v2/models/iris/versions/v9", "k-all", "", 404, "version_not_found"},
		{"unknown model ready", "GET", "/v2/models/resnet/ready", "k-all", "", 404, "model_not_found"},
		{"failed version", "POST", "/v2/models/broken/versions/v1/infer", "k-all", ok, 503, "model_unavailable"},
		{"failed version metadata", "GET", "/v2/models/broken", "k-all", "", 503, "model_unavailable"},
		{"infer without a key", "POST", infer, "", ok, 401, "unauthorized"},
		{"infer with an unknown key", "POST", infer, "nope", ok, 401, "unauthorized"},
		{"infer without predict", "POST", infer, "k-read", ok, 403, "forbidden"},
		{"metadata without read_models", "GET", "/v2/models/iris", "k-predict", "", 403, "forbidden"},
		{"model ready without read_models", "GET", "/v2/models/iris/ready", "k-predict", "", 403, "forbidden"},
		{"server metadata without a key", "GET", "/v2", "", "", 401, "unauthorized"},
		{"body too large", "POST", infer, "k-all", `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}],"id":"` + strings.Repeat("x", 70000) + `"}`, 413, "payload_too_large"},
		{"more rows than MAX_BATCH_ITEMS", "POST", infer, "k-all", `{"inputs":[{"name":"input","shape":[1025,4],"datatype":"FP32","data":[` + strings.TrimSuffix(strings.Repeat("1,", 4100), ",") + `]}]}`, 413, "payload_too_large"},
		{"model name too long", "GET", "/v2/models/" + strings.Repeat("m", 129), "k-all", "", 400, "invalid_request"},
	}
	for _, tt := range statusTests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			resp := s.c.Do(s.c.NewRequest(tt.method, tt.path, tt.key, body))
			var e oipError
			resp.JSON(t, &e)
			if resp.Status != tt.status || e.Code != tt.code || e.Error == "" {
				t.Errorf("%d %s; want %d %s", resp.Status, resp.Body, tt.status, tt.code)
			}
		})
	}
	t.Run("media type", func(t *testing.T) {
		req := s.c.NewRequest(http.MethodPost, infer, "k-all", ok)
		req.Header.Set("Content-Type", "text/plain")
		resp := s.c.Do(req)
		var e oipError
		resp.JSON(t, &e)
		if resp.Status != http.StatusUnsupportedMediaType || e.Code != "unsupported_media_type" {
			t.Errorf("%d %s", resp.Status, resp.Body)
		}
	})
}

// TestResponseBytes: MAX_RESPONSE_BYTES as the binary serves it, over a socket: a /v2
// infer answer past it (a binary BOOL tensor asked for as JSON, six times its size) is
// 413 response_too_large in the protocol's shape, and a /predict answer past it a
// problem; the default is 8 x MAX_REQUEST_BYTES, which both answers fit.
func TestResponseBytes(t *testing.T) {
	const n = 16 << 10 // 16 KiB of BOOL, 80 to 96 KiB of JSON
	header := fmt.Sprintf(`{"inputs":[{"name":"b","shape":[%d],"datatype":"BOOL","parameters":{"binary_data_size":%d}}]}`, n, n)
	tests := []struct {
		name   string
		env    map[string]string
		status int
	}{
		{"over MAX_RESPONSE_BYTES", map[string]string{"MAX_REQUEST_BYTES": "65536", "MAX_RESPONSE_BYTES": "32768"}, http.StatusRequestEntityTooLarge},
		{"the default, 8 x MAX_REQUEST_BYTES", map[string]string{"MAX_REQUEST_BYTES": "65536"}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startOIP(t, tt.env)
			resp := postBinary(s, "/v2/models/echo/versions/v1/infer", header, make([]byte, n))
			if resp.Status != tt.status {
				t.Fatalf("infer: %d %.300s; want %d", resp.Status, resp.Body, tt.status)
			}
			pred := s.c.Post("/predict", "k-all", `{"model":"echo","data":"`+strings.Repeat("x", 40000)+`","version":"v1"}`)
			if tt.status == http.StatusOK {
				if pred.Status != http.StatusOK {
					t.Fatalf("predict: %d %.300s", pred.Status, pred.Body)
				}
				return
			}
			var e oipError
			resp.JSON(t, &e)
			if e.Code != "response_too_large" || !strings.Contains(e.Error, "more than MAX_RESPONSE_BYTES (32768) allows") {
				t.Errorf("infer: %.300s", resp.Body)
			}
			// 40 KB of text: within MAX_REQUEST_BYTES, its answer past MAX_RESPONSE_BYTES.
			if pred.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("predict: %d %.300s", pred.Status, pred.Body)
			}
			if p := pred.Problem(t); p.Code != "response_too_large" {
				t.Errorf("predict: %+v", p)
			}
		})
	}
}

// TestOIPRateLimit: infer takes a token of the key's bucket as /predict does.
func TestOIPRateLimit(t *testing.T) {
	s := startOIP(t, map[string]string{"RATE_LIMIT_RPS": "0.01", "RATE_LIMIT_BURST": "1"})
	body := `{"inputs":[{"name":"x","shape":[1],"datatype":"INT32","data":[7]}]}`
	if resp := oipPost(s, "/v2/models/echo/infer", "k-all", body); resp.Status != 200 {
		t.Fatalf("first call: %d %s", resp.Status, resp.Body)
	}
	resp := oipPost(s, "/v2/models/echo/infer", "k-all", body)
	var e oipError
	resp.JSON(t, &e)
	if resp.Status != http.StatusTooManyRequests || e.Code != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second call: %d %s", resp.Status, resp.Body)
	}
}
