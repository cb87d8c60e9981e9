package e2etest

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
)

// updateAnswers rewrites testdata/answers from the server under test. The files were
// first written by the tree before issue 29 made the tensor paths faster, so a change
// that alters one byte of an answer fails TestAnswersUnchanged; rewrite them only for
// a change of the answers that is meant.
var updateAnswers = flag.Bool("update-answers", false, "rewrite testdata/answers from the server under test")

// answerCase is one request of the corpus whose answer must stay byte for byte.
type answerCase struct {
	name   string
	path   string
	body   []byte
	header int // Inference-Header-Content-Length; 0 when the body is JSON alone
}

// TestAnswersUnchanged replays a corpus of inference requests (JSON and binary
// tensors of every datatype, numbers chosen to reach every spelling a float can take,
// faults) and compares each answer's status, content headers and body with the
// answer recorded in testdata/answers.
func TestAnswersUnchanged(t *testing.T) {
	// The answers are inferd's own bytes: a proxy in front of a server named by
	// INFERD_E2E_URL (make test-contract's Prism) spells JSON numbers its own way and
	// reads binary bodies as text, so this test always runs a server of its own.
	t.Setenv("INFERD_E2E_URL", "")
	tg := start(t)
	h := &http.Client{Transport: apitest.Transport(t, nil)}
	for _, c := range answerCorpus() {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, tg.url+c.path, bytes.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-API-Key", devKey())
			req.Header.Set("X-Request-Id", "answer-"+c.name) // errors carry it
			if c.header > 0 {
				req.Header.Set("Content-Type", "application/octet-stream")
				req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(c.header))
			} else {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := h.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("status: %d\ncontent-type: %s\ninference-header-content-length: %s\n\n",
				resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Inference-Header-Content-Length"))
			got += string(body)
			file := filepath.Join("testdata", "answers", c.name+".answer")
			if *updateAnswers {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test -run TestAnswersUnchanged -update-answers writes it)", err)
			}
			if got != string(want) {
				t.Errorf("the answer changed:\n%s", firstDifference(got, string(want)))
			}
		})
	}
}

// firstDifference shows where two answers part, since whole answers run to megabytes.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d of %d (wanted %d bytes)\ngot:  ...%.200s\nwant: ...%.200s", i, len(got), len(want), got[from:], want[from:])
}

// answerCorpus is the corpus: the example models' real inputs, every datatype through
// echo, floats that reach each of strconv's spellings, and faults.
func answerCorpus() []answerCase {
	const (
		iris   = "/v2/models/iris/versions/v1/infer"
		digits = "/v2/models/digits/versions/v1/infer"
		echo   = "/v2/models/echo/versions/v1/infer"
	)
	r := rand.New(rand.NewPCG(29, 1))
	f32s := float32Corpus(r)
	f64s := float64Corpus(r)
	var long []float64 // FP32 sent with float64's digits, rounded on the way in
	for _, f := range f64s {
		if math.Abs(f) <= math.MaxFloat32 {
			long = append(long, f)
		}
	}
	pixels := make([]float32, 2*64)
	for i := range pixels {
		pixels[i] = float32(r.IntN(17))
	}
	flowers := []float32{5.1, 3.5, 1.4, 0.2, 6.7, 3.1, 4.4, 1.4, 6.3, 3.3, 6, 2.5}
	jsonInfer := func(name, path, input, dtype string, shape []int, data string, extra string) answerCase {
		return answerCase{name: name, path: path, body: fmt.Appendf(nil,
			`{"id":"%s","inputs":[{"name":"%s","shape":%s,"datatype":"%s","data":%s}]%s}`, name, input, ints(shape), dtype, data, extra)}
	}
	binInfer := func(name, path, input, dtype string, shape []int, data []byte, extra string) answerCase {
		head := fmt.Sprintf(`{"inputs":[{"name":"%s","shape":%s,"datatype":"%s","parameters":{"binary_data_size":%d}}]%s}`,
			input, ints(shape), dtype, len(data), extra)
		return answerCase{name: name, path: path, body: append([]byte(head), data...), header: len(head)}
	}
	binaryOut := `,"parameters":{"binary_data_output":true}`
	return []answerCase{
		jsonInfer("iris-json", iris, "input", "FP32", []int{3, 4}, floats32(flowers), ""),
		jsonInfer("iris-json-binary-out", iris, "input", "FP32", []int{3, 4}, floats32(flowers), binaryOut),
		binInfer("iris-binary", iris, "input", "FP32", []int{3, 4}, le32(flowers), ""),
		binInfer("iris-binary-binary-out", iris, "input", "FP32", []int{3, 4}, le32(flowers), binaryOut),
		// Through the steps that standardise their input (issue 36).
		jsonInfer("iris-v2-json", "/v2/models/iris/versions/v2/infer", "input", "FP32", []int{3, 4}, floats32(flowers), ""),
		jsonInfer("diabetes-json", "/v2/models/diabetes/versions/v1/infer", "input", "FP64", []int{2, 10},
			"[59,2,32.1,101,157,93.2,38,4,4.8598,87,48,1,21.6,87,183,103.2,70,3,3.8918,69]", ""),
		jsonInfer("digits-json", digits, "input", "FP32", []int{2, 64}, floats32(pixels), ""),
		binInfer("digits-binary", digits, "input", "FP32", []int{2, 64}, le32(pixels), binaryOut),
		jsonInfer("echo-fp32-json", echo, "x", "FP32", []int{len(f32s)}, floats32(f32s), ""),
		jsonInfer("echo-fp32-json-long-digits", echo, "x", "FP32", []int{len(long)}, floats64(long), ""),
		jsonInfer("echo-fp32-json-binary-out", echo, "x", "FP32", []int{len(f32s)}, floats32(f32s), binaryOut),
		binInfer("echo-fp32-binary-json-out", echo, "x", "FP32", []int{len(f32s)}, le32(f32s), ""),
		jsonInfer("echo-fp64-json", echo, "x", "FP64", []int{len(f64s)}, floats64(f64s), ""),
		jsonInfer("echo-int64-json", echo, "x", "INT64", []int{6}, "[0,-1,9223372036854775807,-9223372036854775808,42,-42]", ""),
		jsonInfer("echo-int32-json", echo, "x", "INT32", []int{2, 2}, "[[2147483647,-2147483648],[7,-7]]", ""),
		jsonInfer("echo-int8-json", echo, "x", "INT8", []int{4}, "[127,-128,0,1]", ""),
		jsonInfer("echo-uint64-json", echo, "x", "UINT64", []int{3}, "[0,1,18446744073709551615]", ""),
		jsonInfer("echo-uint8-json", echo, "x", "UINT8", []int{3}, "[0,128,255]", ""),
		jsonInfer("echo-bool-json", echo, "x", "BOOL", []int{3}, "[true,false,true]", ""),
		jsonInfer("echo-bytes-json", echo, "x", "BYTES", []int{4}, `["plain","quote \" and \\ back","tab\tnew\nline","\u00e9t\u00e9 \u2603 \ud83d\ude00"]`, ""),
		jsonInfer("echo-fp16-json", echo, "x", "FP16", []int{5}, "[0,1.5,-2,65504,0.00006103515625]", ""),
		jsonInfer("echo-fp32-nested", echo, "x", "FP32", []int{2, 3}, "[[1,2,3],[4,5,6]]", ""),
		{name: "echo-two-inputs-one-output", path: echo, body: []byte(`{"inputs":[{"name":"a","shape":[2],"datatype":"FP32","data":[1.5,2.5]},` +
			`{"name":"b","shape":[1],"datatype":"INT64","data":[3]}],"outputs":[{"name":"b"}]}`)},
		jsonInfer("fault-wrong-shape", iris, "input", "FP32", []int{1, 3}, "[1,2,3]", ""),
		jsonInfer("fault-wrong-datatype", iris, "input", "INT64", []int{1, 4}, "[1,2,3,4]", ""),
		jsonInfer("fault-fp32-out-of-range", echo, "x", "FP32", []int{2}, "[1,1e39]", ""),
		jsonInfer("fault-not-a-number", echo, "x", "FP32", []int{2}, `[1,"two"]`, ""),
		jsonInfer("fault-too-few-values", echo, "x", "FP32", []int{3}, "[1,2]", ""),
		jsonInfer("fault-int8-out-of-range", echo, "x", "INT8", []int{1}, "[128]", ""),
		jsonInfer("fault-unknown-datatype", echo, "x", "FP128", []int{1}, "[1]", ""),
		{name: "fault-not-json", path: iris, body: []byte(`{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}`)},
		{name: "predict-iris", path: "/predict", body: []byte(`{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`)},
		{name: "predict-iris-object", path: "/predict", body: []byte(`{"model":"iris","version":"v1","data":{"sepal_length":6.7,"sepal_width":3.1,"petal_length":4.4,"petal_width":1.4}}`)},
		{name: "predict-digits", path: "/predict", body: fmt.Appendf(nil, `{"model":"digits","data":%s}`, floats32(pixels[:64]))},
		{name: "predict-batch-iris", path: "/predict/batch", body: []byte(`{"model":"iris","version":"v1","items":[[5.1,3.5,1.4,0.2],[6.3,3.3,6,2.5]]}`)},
		{name: "predict-echo", path: "/predict", body: []byte(`{"model":"echo","version":"v1","data":{"a":[1,2.50,"x"],"b":null}}`)},
		{name: "fault-predict-short", path: "/predict", body: []byte(`{"model":"iris","version":"v1","data":[5.1,3.5,1.4]}`)},
		binInfer("fault-binary-size-off-the-shape", echo, "x", "FP32", []int{2}, le32([]float32{1}), ""),
	}
}

// float32Corpus is float32s of every kind: zeros, subnormals, the extremes, powers of
// ten about the bounds where the spelling turns to exponents, and random bit patterns.
func float32Corpus(r *rand.Rand) []float32 {
	fs := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, 1, -1, 0.1, 0.2, 0.3, 1.0 / 3, 16777216, 16777217, 123456.789, 1e-7, 9.999999e-7,
		1e-6, 1e21, 9.999999e20, 1e20, 1.17549435e-38, 3.4e38, 5e-45, 0.5, 2.5, 100, 1234567, 12345678, 123456789}
	for e := -45; e <= 38; e++ {
		p := float32(math.Pow10(e))
		fs = append(fs, p, math.Nextafter32(p, 0), math.Nextafter32(p, math.MaxFloat32))
	}
	for len(fs) < 6000 {
		f := math.Float32frombits(r.Uint32())
		if !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			fs = append(fs, f)
		}
	}
	for range 2000 {
		fs = append(fs, float32(r.Float64()*2-1), float32(r.NormFloat64()*1000))
	}
	return fs
}

// float64Corpus is float64s of every kind, and of more digits than a float32 holds.
func float64Corpus(r *rand.Rand) []float64 {
	fs := []float64{0, math.Copysign(0, -1), 5e-324, math.MaxFloat64, 0.1, 1.0 / 3, 2.0 / 3, 9007199254740993, 1e-7, 1e21, 1e22, 123456789.123456789}
	for e := -40; e <= 40; e++ {
		fs = append(fs, math.Pow10(e), math.Nextafter(math.Pow10(e), 0))
	}
	for len(fs) < 3000 {
		f := math.Float64frombits(r.Uint64())
		if !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) < math.MaxFloat32 && (f == 0 || math.Abs(f) > 1e-38) {
			fs = append(fs, f)
		}
	}
	for range 1000 {
		fs = append(fs, r.Float64()*2-1, r.NormFloat64()*1e6)
	}
	return fs
}

func ints(shape []int) string {
	b := []byte{'['}
	for i, n := range shape {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(append(b, ']'))
}

// floats32 spells fs as a flat JSON array, each the shortest that reads back.
func floats32(fs []float32) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = strconv.FormatFloat(float64(f), 'g', -1, 32)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// floats64 spells fs with all the digits a float64 has, more than FP32 keeps.
func floats64(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// le32 is fs as the binary tensor data extension sends FP32: little endian.
func le32(fs []float32) []byte {
	b := make([]byte, 0, 4*len(fs))
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}
