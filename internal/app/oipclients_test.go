package app_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
)

// The requests below are written byte for byte as the clients users already have send
// them, read from their sources and from the wire: NVIDIA's tritonclient.http (through
// geventhttpclient: lower-case header names, never a Content-Type, a Content-Length only
// when there is a body, binary tensors and binary outputs by default) and KServe's
// InferenceRESTClient with protocol v2 (through httpx: its default headers, a
// Content-Type, an id and model_name on every infer body). Triton serves both; so must
// inferd, with no header a user would have to add but the key.

// header is one header line, in the order a client writes it.
type header struct{ name, value string }

// tritonRequest is a request as tritonclient.http writes it.
func tritonRequest(method, path string, hdrs []header, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nuser-agent: python/gevent-http-client-2.0.8\r\n", method, path)
	for _, h := range hdrs {
		fmt.Fprintf(&b, "%s: %s\r\n", h.name, h.value)
	}
	b.WriteString("host: localhost:8000\r\n")
	if body != "" {
		fmt.Fprintf(&b, "content-length: %d\r\n", len(body))
	}
	return b.String() + "\r\n" + body
}

// kserveRequest is a request as KServe's InferenceRESTClient writes it.
func kserveRequest(method, path string, hdrs []header, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: localhost:8000\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: keep-alive\r\nUser-Agent: python-httpx/0.23.3\r\n", method, path)
	for _, h := range hdrs {
		fmt.Fprintf(&b, "%s: %s\r\n", h.name, h.value)
	}
	if body != "" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	return b.String() + "\r\n" + body
}

// oipOutput is one output of an answer, its values read from JSON or from the binary
// part the answer's Inference-Header-Content-Length points past.
type oipOutput struct {
	name, datatype string
	shape          []int64
	values         []float64
}

// decodeOIP reads an infer answer the way the clients do.
func decodeOIP(t *testing.T, resp *apitest.Response) (model, version string, outs []oipOutput) {
	t.Helper()
	if resp.Status != 200 {
		t.Fatalf("status %d: %q", resp.Status, resp.Body)
	}
	head, rest := resp.Body, []byte(nil)
	if hl := resp.Header.Get("Inference-Header-Content-Length"); hl != "" {
		n, err := strconv.Atoi(hl)
		if err != nil || n > len(resp.Body) {
			t.Fatalf("Inference-Header-Content-Length %q for %d bytes", hl, len(resp.Body))
		}
		head, rest = resp.Body[:n], resp.Body[n:]
	}
	var r struct {
		ModelName    string `json:"model_name"`
		ModelVersion string `json:"model_version"`
		Outputs      []struct {
			Name       string          `json:"name"`
			Datatype   string          `json:"datatype"`
			Shape      []int64         `json:"shape"`
			Data       json.RawMessage `json:"data"`
			Parameters struct {
				BinaryDataSize *int `json:"binary_data_size"`
			} `json:"parameters"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(head, &r); err != nil {
		t.Fatalf("the JSON part %q: %v", head, err)
	}
	for _, o := range r.Outputs {
		out := oipOutput{name: o.Name, datatype: o.Datatype, shape: o.Shape}
		if size := o.Parameters.BinaryDataSize; size != nil {
			if *size > len(rest) {
				t.Fatalf("output %s: %d bytes, %d left", o.Name, *size, len(rest))
			}
			part := rest[:*size]
			rest = rest[*size:]
			switch o.Datatype {
			case "FP32":
				for i := 0; i+4 <= len(part); i += 4 {
					out.values = append(out.values, float64(math.Float32frombits(binary.LittleEndian.Uint32(part[i:]))))
				}
			case "FP64":
				for i := 0; i+8 <= len(part); i += 8 {
					out.values = append(out.values, math.Float64frombits(binary.LittleEndian.Uint64(part[i:])))
				}
			case "INT32":
				for i := 0; i+4 <= len(part); i += 4 {
					out.values = append(out.values, float64(int32(binary.LittleEndian.Uint32(part[i:]))))
				}
			default:
				t.Fatalf("output %s: no decoder for %s", o.Name, o.Datatype)
			}
		} else if err := json.Unmarshal(o.Data, &out.values); err != nil {
			t.Fatalf("output %s data %s: %v", o.Name, o.Data, err)
		}
		outs = append(outs, out)
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes after the last binary output", len(rest))
	}
	return r.ModelName, r.ModelVersion, outs
}

// topOfPredict is the label and score /predict ranks first for data.
func topOfPredict(t *testing.T, s *started, model, data string) (string, float64) {
	t.Helper()
	var p struct {
		Result []struct {
			Label string  `json:"label"`
			Score float64 `json:"score"`
		} `json:"result"`
	}
	s.c.Post("/predict", "k-all", `{"model":"`+model+`","version":"v1","data":`+data+`}`).JSON(t, &p)
	if len(p.Result) == 0 {
		t.Fatalf("/predict of %s answered no ranking", model)
	}
	return p.Result[0].Label, p.Result[0].Score
}

// digitThree is docs/api.md's 8x8 image of a handwritten 3.
var digitThree = []float32{0, 0, 9, 16, 10, 1, 0, 0, 0, 0, 8, 3, 16, 4, 0, 0, 0, 0, 0, 5, 14, 2, 0, 0, 0, 0, 2, 16, 15, 7, 0, 0, 0, 0, 0, 0, 3, 15, 2, 0, 0, 4, 6, 0, 0, 13, 7, 0, 0, 6, 13, 1, 5, 16, 3, 0, 0, 0, 10, 16, 15, 5, 0, 0}

// TestRealOIPClients replays what tritonclient.http and KServe's REST client send for
// iris, digits and echo (JSON and binary in and out, with no header but the key added),
// checks each answer against the contract, and the numbers against /predict's for the
// same input: the probabilities the versions' steps leave rank first the label
// /predict ranks first, with its score.
func TestRealOIPClients(t *testing.T) {
	s := startOIP(t, nil)
	addr := strings.TrimPrefix(s.url, "http://")
	key := header{"x-api-key", "k-all"}

	flower := []float32{5.1, 3.5, 1.4, 0.2}
	flowerJSON := `[5.1,3.5,1.4,0.2]`
	digitJSON, _ := json.Marshal(digitThree)
	irisLabels := []string{"setosa", "versicolor", "virginica"}
	digitLabels := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

	jsonInput := func(name string, shape string, data []float32) string {
		d, _ := json.Marshal(data)
		return `{"name":"` + name + `","shape":` + shape + `,"datatype":"FP32","data":` + string(d) + `}`
	}
	binInput := func(name string, shape string, n int) string {
		return `{"name":"` + name + `","shape":` + shape + `,"datatype":"FP32","parameters":{"binary_data_size":` + strconv.Itoa(4*n) + `}}`
	}
	type model struct {
		name, data string // data: /predict's
		labels     []string
		in         []float32
		shape      string
	}
	models := []model{
		{"iris", flowerJSON, irisLabels, flower, "[1,4]"},
		{"digits", string(digitJSON), digitLabels, digitThree, "[1,64]"},
	}
	for _, m := range models {
		wantLabel, wantScore := topOfPredict(t, s, m.name, m.data)
		binHead := func(extra string) string {
			return `{"inputs":[` + binInput("input", m.shape, len(m.in)) + `]` + extra + `}`
		}
		tests := []struct {
			name, raw string
			binaryOut bool
		}{
			{"tritonclient, JSON in, JSON out", tritonRequest("POST", "/v2/models/"+m.name+"/infer", []header{key},
				`{"inputs":[`+jsonInput("input", m.shape, m.in)+`],"outputs":[{"name":"logits","parameters":{"binary_data":false}}]}`), false},
			{"tritonclient, JSON in, its default binary_data_output", tritonRequest("POST", "/v2/models/"+m.name+"/infer", []header{key},
				`{"inputs":[`+jsonInput("input", m.shape, m.in)+`],"parameters":{"binary_data_output":true}}`), true},
			{"tritonclient, binary in and out (its default)", tritonRequest("POST", "/v2/models/"+m.name+"/versions/v1/infer",
				[]header{key, {"inference-header-content-length", strconv.Itoa(len(binHead(`,"parameters":{"binary_data_output":true}`)))}},
				binHead(`,"parameters":{"binary_data_output":true}`)+string(fp32(m.in...))), true},
			{"tritonclient, binary in, an output asked for as binary", tritonRequest("POST", "/v2/models/"+m.name+"/infer",
				[]header{key, {"inference-header-content-length", strconv.Itoa(len(binHead(`,"outputs":[{"name":"logits","parameters":{"binary_data":true}}]`)))}},
				binHead(`,"outputs":[{"name":"logits","parameters":{"binary_data":true}}]`)+string(fp32(m.in...))), true},
			{"KServe, JSON", kserveRequest("POST", "/v2/models/"+m.name+"/infer", []header{key, {"content-type", "application/json"}},
				`{"id":"41ab7974-de8b-44af-8c1a-f90d26de4193","model_name":"`+m.name+`","inputs":[`+jsonInput("input", m.shape, m.in)+`]}`), false},
			{"KServe, binary in, binary_data_output", kserveRequest("POST", "/v2/models/"+m.name+"/infer",
				[]header{key, {"inference-header-content-length", strconv.Itoa(len(`{"id":"kreq-1","model_name":"` + m.name + `",` + binHead(`,"parameters":{"binary_data_output":true}`)[1:]))}, {"content-type", "application/octet-stream"}},
				`{"id":"kreq-1","model_name":"`+m.name+`",`+binHead(`,"parameters":{"binary_data_output":true}`)[1:]+string(fp32(m.in...))), true},
		}
		for _, tt := range tests {
			t.Run(m.name+"/"+tt.name, func(t *testing.T) {
				resp := rawExchange(t, addr, tt.raw, false, false)
				model, version, outs := decodeOIP(t, resp)
				if model != m.name || version != "v1" || len(outs) != 1 || outs[0].name != "logits" {
					t.Fatalf("answer %s %s %+v", model, version, outs)
				}
				if binaryOut := resp.Header.Get("Inference-Header-Content-Length") != ""; binaryOut != tt.binaryOut {
					t.Errorf("binary answer %v, want %v", binaryOut, tt.binaryOut)
				}
				// The version's softmax and round run for tensors too: the answer is
				// /predict's probabilities, FP64.
				probs := outs[0].values
				top := slices.Index(probs, slices.Max(probs))
				if outs[0].datatype != "FP64" || m.labels[top] != wantLabel || probs[top] != wantScore {
					t.Errorf("the %s answer ranks %s first at %v; /predict says %s at %v", outs[0].datatype, m.labels[top], probs[top], wantLabel, wantScore)
				}
			})
		}
	}

	t.Run("echo/tritonclient, INT32 binary in and out", func(t *testing.T) {
		head := `{"inputs":[{"name":"INPUT0","shape":[1,3],"datatype":"INT32","parameters":{"binary_data_size":12}}],"parameters":{"binary_data_output":true}}`
		var in bytes.Buffer
		for _, v := range []int32{7, -8, 9} {
			_ = binary.Write(&in, binary.LittleEndian, v)
		}
		resp := rawExchange(t, addr, tritonRequest("POST", "/v2/models/echo/infer",
			[]header{key, {"inference-header-content-length", strconv.Itoa(len(head))}}, head+in.String()), false, false)
		_, _, outs := decodeOIP(t, resp)
		if len(outs) != 1 || outs[0].name != "INPUT0" || !slices.Equal(outs[0].values, []float64{7, -8, 9}) || !slices.Equal(outs[0].shape, []int64{1, 3}) {
			t.Errorf("echo answered %+v", outs)
		}
	})
	t.Run("echo/tritonclient, gzip request", func(t *testing.T) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		_, _ = zw.Write([]byte(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1.5,-2]}]}`))
		_ = zw.Close()
		resp := rawExchange(t, addr, tritonRequest("POST", "/v2/models/echo/infer", []header{key, {"content-encoding", "gzip"}}, z.String()), false, false)
		_, _, outs := decodeOIP(t, resp)
		if len(outs) != 1 || !slices.Equal(outs[0].values, []float64{1.5, -2}) {
			t.Errorf("echo answered %+v", outs)
		}
	})
	t.Run("tritonclient's other calls", func(t *testing.T) {
		for _, tt := range []struct {
			method, path, body string
			want               string // a part of the answer
		}{
			{"GET", "/v2/health/live", "", `"live":true`},
			{"GET", "/v2/models/iris/versions/v1/ready", "", `"ready":true`},
			{"GET", "/v2/models/iris", "", `"outputs":[{"datatype":"FP64","name":"logits","shape":[-1,3]}]`},
			{"GET", "/v2/models/iris/config", "", `"input":[{"data_type":"TYPE_FP32","dims":[4],"name":"input"}]`},
			{"GET", "/v2/models/iris/stats", "", `"name":"iris","version":"v1"`},
			{"GET", "/v2/models/stats", "", `"model_stats":[`},
			{"POST", "/v2/repository/index", "", `{"name":"iris","state":"READY","version":"v1"}`},
		} {
			resp := rawExchange(t, addr, tritonRequest(tt.method, tt.path, []header{key}, tt.body), false, false)
			if resp.Status != 200 || !strings.Contains(string(resp.Body), tt.want) {
				t.Errorf("%s %s: %d %s, want %s", tt.method, tt.path, resp.Status, resp.Body, tt.want)
			}
		}
	})
	t.Run("a Content-Type the protocol does not send", func(t *testing.T) {
		resp := rawExchange(t, addr, tritonRequest("POST", "/v2/models/echo/infer", []header{key, {"content-type", "text/plain"}},
			`{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1]}]}`), false, false)
		if e := resp.OIPError(t); resp.Status != 415 || e.Code != "unsupported_media_type" {
			t.Errorf("%d %+v, want 415 unsupported_media_type", resp.Status, e)
		}
	})
}
