package e2etest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/proctest"
)

// oneAnswerInputs is how many random inputs each version gets on every protocol.
const oneAnswerInputs = 50

// oneAnswerCase is a version of the example repository and how to draw its inputs.
type oneAnswerCase struct {
	model, version string
	// draw returns one random input: the numbers of one item, as its tensor holds them.
	draw func(r *rand.Rand) []float64
}

// TestOneAnswerPerVersion: the same input gives the same numbers whichever protocol
// asks, for every version of the example repository: /predict, /v2 infer with JSON
// and with binary tensor data, and gRPC ModelInfer with typed and with raw contents,
// 50 seeded random inputs each, sent one call at a time to the built server over its
// sockets. /predict's top_k objects are compared label by label with that class's
// value in the /v2 output, its numbers with the output's. The /v2 metadata, Triton's
// model configuration and gRPC's ModelMetadata describe exactly the tensors the calls
// send and get back. Every HTTP answer is validated against the contract.
func TestOneAnswerPerVersion(t *testing.T) {
	// gRPC and the binary bytes need inferd itself, not a proxy in front of it.
	t.Setenv("INFERD_E2E_URL", "")
	grpcPort := proctest.FreePort(t)
	tg := start(t, "GRPC_PORT="+strconv.Itoa(grpcPort))
	rest := apitest.New(t, tg.url)
	conn, err := grpc.NewClient("127.0.0.1:"+strconv.Itoa(grpcPort), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	oa := &oneAnswer{rest: rest, grpc: pb.NewGRPCInferenceServiceClient(conn), key: devKey()}

	r := rand.New(rand.NewPCG(36, 1))
	flower := func(r *rand.Rand) []float64 {
		// Measurements in cm to a millimetre, over the ranges of the iris data set.
		return []float64{tenths(r, 4.3, 7.9), tenths(r, 2.0, 4.4), tenths(r, 1.0, 6.9), tenths(r, 0.1, 2.5)}
	}
	tests := []oneAnswerCase{
		{"iris", "v1", flower},
		{"iris", "v2", flower},
		{"diabetes", "v1", func(r *rand.Rand) []float64 {
			// age, sex, bmi, bp, s1-s6 over the ranges of scikit-learn's unscaled data.
			return []float64{float64(19 + r.IntN(61)), float64(1 + r.IntN(2)), tenths(r, 18, 42.2), float64(62 + r.IntN(72)),
				float64(97 + r.IntN(205)), tenths(r, 41.6, 242.4), float64(22 + r.IntN(78)), hundredths(r, 2, 9.09),
				math.Round((3.2581+r.Float64()*2.9)*1e4) / 1e4, float64(58 + r.IntN(67))}
		}},
		{"digits", "v1", func(r *rand.Rand) []float64 {
			px := make([]float64, 64)
			for i := range px {
				px[i] = float64(r.IntN(17))
			}
			return px
		}},
		// echo declares no tensors: /predict answers its JSON, the protocols their tensor.
		{"echo", "v1", func(r *rand.Rand) []float64 {
			xs := make([]float64, 1+r.IntN(8))
			for i := range xs {
				xs[i] = r.NormFloat64() * math.Pow10(r.IntN(9)-4)
			}
			return xs
		}},
	}
	for _, tc := range tests {
		t.Run(tc.model+"/"+tc.version, func(t *testing.T) {
			sig := oa.signature(t, tc.model, tc.version)
			for i := range oneAnswerInputs {
				x := tc.draw(r)
				if tc.model == "iris" && i == 0 {
					x = []float64{6.3, 2.8, 5.1, 1.5} // the flower of issue 36's report
				}
				oa.check(t, sig, i, x)
			}
		})
	}
}

func tenths(r *rand.Rand, lo, hi float64) float64 {
	return math.Round((lo+r.Float64()*(hi-lo))*10) / 10
}

func hundredths(r *rand.Rand, lo, hi float64) float64 {
	return math.Round((lo+r.Float64()*(hi-lo))*100) / 100
}

// oneAnswer asks one server the same question by every protocol.
type oneAnswer struct {
	rest *apitest.Client
	grpc pb.GRPCInferenceServiceClient
	key  string
}

// tensorMeta is a tensor of the protocol's model metadata.
type tensorMeta struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// versionSig is what the tests know of a version before calling it: the tensors its
// /v2 metadata describes, and from GET /models the names to_tensor reads and the
// labels top_k lists.
type versionSig struct {
	model, version  string
	inputs, outputs []tensorMeta
	features        []string // to_tensor's features; nil: the item is an array
	labels          []string // top_k's labels; nil: no top_k
}

// signature reads the version's metadata: /v2's, which Triton's configuration and
// gRPC's ModelMetadata must repeat, and inferd's own.
func (oa *oneAnswer) signature(t *testing.T, model, version string) versionSig {
	t.Helper()
	sig := versionSig{model: model, version: version}
	var md struct {
		Name     string       `json:"name"`
		Platform string       `json:"platform"`
		Inputs   []tensorMeta `json:"inputs"`
		Outputs  []tensorMeta `json:"outputs"`
	}
	resp := oa.rest.Get("/v2/models/"+model+"/versions/"+version, oa.key)
	if resp.Status != http.StatusOK {
		t.Fatalf("/v2 metadata: %d %s", resp.Status, resp.Body)
	}
	resp.JSON(t, &md)
	sig.inputs, sig.outputs = md.Inputs, md.Outputs

	gmd, err := oa.grpc.ModelMetadata(oa.ctx(t), &pb.ModelMetadataRequest{Name: model, Version: version})
	if err != nil {
		t.Fatalf("gRPC ModelMetadata: %v", err)
	}
	same := func(what string, rest []tensorMeta, g []*pb.ModelMetadataResponse_TensorMetadata) {
		t.Helper()
		ok := len(rest) == len(g)
		for i := 0; ok && i < len(g); i++ {
			ok = rest[i].Name == g[i].Name && rest[i].Datatype == g[i].Datatype && slices.Equal(rest[i].Shape, g[i].Shape)
		}
		if !ok {
			t.Errorf("gRPC ModelMetadata %s %v; /v2's %+v", what, g, rest)
		}
	}
	same("inputs", md.Inputs, gmd.Inputs)
	same("outputs", md.Outputs, gmd.Outputs)

	var cfg struct {
		MaxBatchSize int64 `json:"max_batch_size"`
		Input        []struct {
			Name     string  `json:"name"`
			DataType string  `json:"data_type"`
			Dims     []int64 `json:"dims"`
		} `json:"input"`
		Output []struct {
			Name     string  `json:"name"`
			DataType string  `json:"data_type"`
			Dims     []int64 `json:"dims"`
		} `json:"output"`
	}
	resp = oa.rest.Get("/v2/models/"+model+"/versions/"+version+"/config", oa.key)
	if resp.Status != http.StatusOK {
		t.Fatalf("/v2 config: %d %s", resp.Status, resp.Body)
	}
	resp.JSON(t, &cfg)
	dims := func(shape []int64) []int64 {
		if cfg.MaxBatchSize > 0 && len(shape) > 0 {
			return shape[1:]
		}
		return shape
	}
	if len(cfg.Input) != len(md.Inputs) || len(cfg.Output) != len(md.Outputs) {
		t.Errorf("config %s; metadata %+v %+v", resp.Body, md.Inputs, md.Outputs)
	}
	for i := 0; i < len(cfg.Input) && i < len(md.Inputs); i++ {
		if in := cfg.Input[i]; in.Name != md.Inputs[i].Name || in.DataType != "TYPE_"+md.Inputs[i].Datatype || !slices.Equal(in.Dims, dims(md.Inputs[i].Shape)) {
			t.Errorf("config input %+v; metadata %+v", in, md.Inputs[i])
		}
	}
	for i := 0; i < len(cfg.Output) && i < len(md.Outputs); i++ {
		if out := cfg.Output[i]; out.Name != md.Outputs[i].Name || out.DataType != "TYPE_"+md.Outputs[i].Datatype || !slices.Equal(out.Dims, dims(md.Outputs[i].Shape)) {
			t.Errorf("config output %+v; metadata %+v", out, md.Outputs[i])
		}
	}

	var own struct {
		Preprocess []struct {
			Name   string `json:"name"`
			Params struct {
				Features []string `json:"features"`
			} `json:"params"`
		} `json:"preprocess"`
		Postprocess []struct {
			Name   string `json:"name"`
			Params struct {
				Labels []string `json:"labels"`
			} `json:"params"`
		} `json:"postprocess"`
	}
	resp = oa.rest.Get("/models/"+model+"/"+version, oa.key)
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /models: %d %s", resp.Status, resp.Body)
	}
	resp.JSON(t, &own)
	for _, s := range own.Preprocess {
		if s.Name == "to_tensor" {
			sig.features = s.Params.Features
		}
	}
	for _, s := range own.Postprocess {
		if s.Name == "top_k" {
			sig.labels = s.Params.Labels
		}
	}
	return sig
}

func (oa *oneAnswer) ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return metadata.AppendToOutgoingContext(c, "x-api-key", oa.key)
}

// answer is one output tensor of an answer, its values widened to float64s exactly.
type answer struct {
	name, datatype string
	shape          []int64
	values         []float64
}

func (a answer) String() string {
	return fmt.Sprintf("%s %s %v %v", a.name, a.datatype, a.shape, a.values)
}

// request is the tensor a protocol call sends for x: the metadata's input, or for a
// model that declares none (echo) an FP64 input "x"; one row.
func (sig versionSig) request(x []float64) (name, datatype string, shape []int64) {
	if len(sig.inputs) == 0 {
		return "x", "FP64", []int64{1, int64(len(x))}
	}
	in := sig.inputs[0]
	shape = slices.Clone(in.Shape)
	shape[0] = 1
	return in.Name, in.Datatype, shape
}

// spell writes x as the request's datatype reads it, the same text for /predict and
// /v2's JSON: FP32 values are float32s, written with a float32's shortest digits.
func spell(datatype string, x float64) string {
	switch datatype {
	case "FP32":
		return strconv.FormatFloat(float64(float32(x)), 'g', -1, 32)
	case "INT32", "INT64":
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// check asks every protocol for input x (input i of the version) and compares.
func (oa *oneAnswer) check(t *testing.T, sig versionSig, i int, x []float64) {
	t.Helper()
	name, datatype, shape := sig.request(x)
	if datatype == "FP32" {
		for j := range x {
			x[j] = float64(float32(x[j]))
		}
	}
	spelled := make([]string, len(x))
	for j, v := range x {
		spelled[j] = spell(datatype, v)
	}
	predicted := oa.predict(t, sig, i, spelled)
	byJSON := oa.v2JSON(t, sig, name, datatype, shape, spelled)
	byBinary := oa.v2Binary(t, sig, name, datatype, shape, x)
	typed, raw := oa.grpcInfer(t, sig, name, datatype, shape, x)
	for what, got := range map[string][]answer{"/v2 binary": byBinary, "gRPC typed": typed, "gRPC raw": raw} {
		if !sameAnswers(got, byJSON) {
			t.Fatalf("input %d %v: %s answered %v; /v2 JSON %v", i, spelled, what, got, byJSON)
		}
	}
	if len(sig.outputs) > 0 {
		if len(byJSON) != len(sig.outputs) {
			t.Fatalf("input %d: outputs %v; the metadata describes %+v", i, byJSON, sig.outputs)
		}
		for j, o := range byJSON {
			m := sig.outputs[j]
			if o.name != m.Name || o.datatype != m.Datatype || !fits(m.Shape, o.shape) {
				t.Fatalf("input %d: output %s %s %v; the metadata describes %+v", i, o.name, o.datatype, o.shape, m)
			}
		}
	}
	if len(byJSON) == 0 {
		t.Fatalf("input %d: no outputs", i)
	}
	// The numbers first, from the output that holds most of them if there are several
	// (there must not be here: see the end).
	out := byJSON[0]
	for _, o := range byJSON {
		if len(o.values) > len(out.values) {
			out = o
		}
	}
	v2 := out.values
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("input %d %v: /predict answered %s, /v2 %v: %s", i, spelled, predicted, out, fmt.Sprintf(format, args...))
	}
	defer func() {
		if len(byJSON) != 1 {
			t.Fatalf("input %d: %d outputs %v; the postprocess steps leave one tensor, as they leave /predict one result", i, len(byJSON), byJSON)
		}
	}()
	switch result := apitest.Decode(t, predicted).(type) {
	case json.Number:
		if len(v2) != 1 || number(t, result) != v2[0] {
			fail("not the same number")
		}
	case []any:
		if sig.labels == nil {
			if len(result) != len(v2) {
				fail("not as many numbers")
			}
			for j, e := range result {
				if n, ok := e.(json.Number); !ok || number(t, n) != v2[j] {
					fail("element %d differs", j)
				}
			}
			return
		}
		// top_k: each listed label's score is that class's value in the tensor.
		for _, e := range result {
			entry, _ := e.(map[string]any)
			label, _ := entry["label"].(string)
			score, _ := entry["score"].(json.Number)
			k := slices.Index(sig.labels, label)
			if k < 0 || k >= len(v2) || score == "" || number(t, score) != v2[k] {
				fail("label %q", label)
			}
		}
	default:
		fail("a result of an unexpected kind")
	}
}

func number(t *testing.T, n json.Number) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		t.Fatalf("%s: %v", n, err)
	}
	return f
}

// fits reports whether shape fits the metadata's want, in which -1 is any size.
func fits(want, shape []int64) bool {
	if len(want) != len(shape) {
		return false
	}
	for i, d := range want {
		if d >= 0 && d != shape[i] {
			return false
		}
	}
	return true
}

func sameAnswers(a, b []answer) bool {
	return slices.EqualFunc(a, b, func(x, y answer) bool {
		return x.name == y.name && x.datatype == y.datatype && slices.Equal(x.shape, y.shape) &&
			slices.EqualFunc(x.values, y.values, func(p, q float64) bool { return math.Float64bits(p) == math.Float64bits(q) })
	})
}

// predict posts x to /predict, as an object of named features every other input when
// the version names them, and returns the result's JSON.
func (oa *oneAnswer) predict(t *testing.T, sig versionSig, i int, spelled []string) json.RawMessage {
	t.Helper()
	data := "[" + strings.Join(spelled, ",") + "]"
	if sig.features != nil && i%2 == 1 {
		parts := make([]string, len(spelled))
		for j, f := range sig.features {
			parts[j] = strconv.Quote(f) + ":" + spelled[j]
		}
		data = "{" + strings.Join(parts, ",") + "}"
	}
	resp := oa.rest.Post("/predict", oa.key, fmt.Sprintf(`{"model":%q,"version":%q,"data":%s}`, sig.model, sig.version, data))
	if resp.Status != http.StatusOK {
		t.Fatalf("/predict %s: %d %s", data, resp.Status, resp.Body)
	}
	var p struct {
		Result json.RawMessage `json:"result"`
	}
	resp.JSON(t, &p)
	return p.Result
}

// oipAnswer is the protocol's infer response.
type oipAnswer struct {
	ModelVersion string `json:"model_version"`
	Outputs      []struct {
		Name       string          `json:"name"`
		Datatype   string          `json:"datatype"`
		Shape      []int64         `json:"shape"`
		Data       json.RawMessage `json:"data"`
		Parameters struct {
			BinaryDataSize int `json:"binary_data_size"`
		} `json:"parameters"`
	} `json:"outputs"`
}

func (oa *oneAnswer) infer(t *testing.T, sig versionSig, body []byte, headerLen int) *apitest.Response {
	t.Helper()
	req := oa.rest.NewRequest(http.MethodPost, "/v2/models/"+sig.model+"/versions/"+sig.version+"/infer", oa.key, body)
	if headerLen >= 0 {
		req.Header.Set("Content-Type", "application/octet-stream")
		req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(headerLen))
	}
	resp := oa.rest.Do(req)
	if resp.Status != http.StatusOK {
		t.Fatalf("/v2 infer: %d %s", resp.Status, resp.Body)
	}
	return resp
}

// v2JSON sends x as JSON and reads the JSON answer.
func (oa *oneAnswer) v2JSON(t *testing.T, sig versionSig, name, datatype string, shape []int64, spelled []string) []answer {
	t.Helper()
	shapeJSON, _ := json.Marshal(shape)
	body := fmt.Sprintf(`{"inputs":[{"name":%q,"shape":%s,"datatype":%q,"data":[%s]}]}`, name, shapeJSON, datatype, strings.Join(spelled, ","))
	resp := oa.infer(t, sig, []byte(body), -1)
	var r oipAnswer
	resp.JSON(t, &r)
	if r.ModelVersion != sig.version {
		t.Fatalf("model_version %q, want %q", r.ModelVersion, sig.version)
	}
	out := make([]answer, len(r.Outputs))
	for i, o := range r.Outputs {
		var vs []json.Number
		dec := json.NewDecoder(bytes.NewReader(o.Data))
		dec.UseNumber()
		if err := dec.Decode(&vs); err != nil {
			t.Fatalf("output %s: data %s: %v", o.Name, o.Data, err)
		}
		a := answer{name: o.Name, datatype: o.Datatype, shape: o.Shape}
		for _, v := range vs {
			f := number(t, v)
			if o.Datatype == "FP32" {
				f = float64(float32(f))
			}
			a.values = append(a.values, f)
		}
		out[i] = a
	}
	return out
}

// v2Binary sends x as binary tensor data and asks for every output so.
func (oa *oneAnswer) v2Binary(t *testing.T, sig versionSig, name, datatype string, shape []int64, x []float64) []answer {
	t.Helper()
	raw := encodeRaw(t, datatype, x)
	shapeJSON, _ := json.Marshal(shape)
	header := fmt.Sprintf(`{"inputs":[{"name":%q,"shape":%s,"datatype":%q,"parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`,
		name, shapeJSON, datatype, len(raw))
	resp := oa.infer(t, sig, append([]byte(header), raw...), len(header))
	n, err := strconv.Atoi(resp.Header.Get("Inference-Header-Content-Length"))
	if err != nil || n > len(resp.Body) || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("binary answer: %s, header length %q", resp.Header.Get("Content-Type"), resp.Header.Get("Inference-Header-Content-Length"))
	}
	var r oipAnswer
	if err := json.Unmarshal(resp.Body[:n], &r); err != nil {
		t.Fatalf("binary answer's header %s: %v", resp.Body[:n], err)
	}
	rest := resp.Body[n:]
	out := make([]answer, len(r.Outputs))
	for i, o := range r.Outputs {
		size := o.Parameters.BinaryDataSize
		if size > len(rest) {
			t.Fatalf("output %s: binary_data_size %d, %d bytes left", o.Name, size, len(rest))
		}
		out[i] = answer{name: o.Name, datatype: o.Datatype, shape: o.Shape, values: decodeRaw(t, o.Datatype, rest[:size])}
		rest = rest[size:]
	}
	return out
}

// grpcInfer sends x to ModelInfer as typed contents and as raw contents.
func (oa *oneAnswer) grpcInfer(t *testing.T, sig versionSig, name, datatype string, shape []int64, x []float64) (typed, raw []answer) {
	t.Helper()
	contents := &pb.InferTensorContents{}
	for _, v := range x {
		switch datatype {
		case "FP32":
			contents.Fp32Contents = append(contents.Fp32Contents, float32(v))
		case "FP64":
			contents.Fp64Contents = append(contents.Fp64Contents, v)
		case "INT64":
			contents.Int64Contents = append(contents.Int64Contents, int64(v))
		case "INT32":
			contents.IntContents = append(contents.IntContents, int32(v))
		default:
			t.Fatalf("no contents for %s here", datatype)
		}
	}
	in := &pb.ModelInferRequest_InferInputTensor{Name: name, Datatype: datatype, Shape: shape}
	withContents := &pb.ModelInferRequest_InferInputTensor{Name: name, Datatype: datatype, Shape: shape, Contents: contents}
	tr, err := oa.grpc.ModelInfer(oa.ctx(t), &pb.ModelInferRequest{ModelName: sig.model, ModelVersion: sig.version,
		Inputs: []*pb.ModelInferRequest_InferInputTensor{withContents}}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("gRPC typed: %v", err)
	}
	rr, err := oa.grpc.ModelInfer(oa.ctx(t), &pb.ModelInferRequest{ModelName: sig.model, ModelVersion: sig.version,
		Inputs: []*pb.ModelInferRequest_InferInputTensor{in}, RawInputContents: [][]byte{encodeRaw(t, datatype, x)}}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("gRPC raw: %v", err)
	}
	for _, o := range tr.Outputs {
		a := answer{name: o.Name, datatype: o.Datatype, shape: o.Shape}
		c := o.Contents
		if c == nil {
			t.Fatalf("gRPC typed: output %s has no contents", o.Name)
		}
		switch o.Datatype {
		case "FP32":
			for _, v := range c.Fp32Contents {
				a.values = append(a.values, float64(v))
			}
		case "FP64":
			a.values = slices.Clone(c.Fp64Contents)
		case "INT64":
			for _, v := range c.Int64Contents {
				a.values = append(a.values, float64(v))
			}
		case "INT32":
			for _, v := range c.IntContents {
				a.values = append(a.values, float64(v))
			}
		default:
			t.Fatalf("gRPC typed: output %s is %s", o.Name, o.Datatype)
		}
		typed = append(typed, a)
	}
	if len(rr.RawOutputContents) != len(rr.Outputs) {
		t.Fatalf("gRPC raw: %d raw contents for %d outputs", len(rr.RawOutputContents), len(rr.Outputs))
	}
	for i, o := range rr.Outputs {
		raw = append(raw, answer{name: o.Name, datatype: o.Datatype, shape: o.Shape, values: decodeRaw(t, o.Datatype, rr.RawOutputContents[i])})
	}
	return typed, raw
}

// encodeRaw is x as the binary data extension and raw contents carry datatype.
func encodeRaw(t *testing.T, datatype string, x []float64) []byte {
	t.Helper()
	var b []byte
	for _, v := range x {
		switch datatype {
		case "FP32":
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
		case "FP64":
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		case "INT64":
			b = binary.LittleEndian.AppendUint64(b, uint64(int64(v)))
		case "INT32":
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(v)))
		default:
			t.Fatalf("no raw form for %s here", datatype)
		}
	}
	return b
}

// decodeRaw reads little-endian elements of datatype, widened to float64s.
func decodeRaw(t *testing.T, datatype string, b []byte) []float64 {
	t.Helper()
	size := map[string]int{"FP32": 4, "INT32": 4, "FP64": 8, "INT64": 8}[datatype]
	if size == 0 || len(b)%size != 0 {
		t.Fatalf("%d bytes of %s", len(b), datatype)
	}
	out := make([]float64, 0, len(b)/size)
	for i := 0; i < len(b); i += size {
		switch datatype {
		case "FP32":
			out = append(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
		case "FP64":
			out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		case "INT64":
			out = append(out, float64(int64(binary.LittleEndian.Uint64(b[i:]))))
		case "INT32":
			out = append(out, float64(int32(binary.LittleEndian.Uint32(b[i:]))))
		}
	}
	return out
}
