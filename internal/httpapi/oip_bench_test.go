package httpapi_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkOIPInfer sends a 1 MB FP32 tensor through echo's /v2 infer, as JSON both
// ways and as binary tensor data both ways, through the whole handler without a
// socket: what the binary data extension saves is the server's own work. bool sends
// a 1 MB BOOL tensor as binary data and asks for it as JSON, about 5.5 MB of true and
// false: the dearest answer per byte sent.
func BenchmarkOIPInfer(b *testing.B) {
	h := benchHandlerWith(b, 16<<20)

	const n = 1 << 18 // 1 MiB of FP32
	var js bytes.Buffer
	fmt.Fprintf(&js, `{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","data":[`, n)
	header := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`, n, 4*n)
	bin := []byte(header)
	for i := range n {
		v := float32(math.Sin(float64(i))) * 100
		if i > 0 {
			js.WriteByte(',')
		}
		js.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
		bin = binary.LittleEndian.AppendUint32(bin, math.Float32bits(v))
	}
	js.WriteString(`]}]}`)
	const bools = 1 << 20
	boolHeader := fmt.Sprintf(`{"inputs":[{"name":"b","shape":[1,%d],"datatype":"BOOL","parameters":{"binary_data_size":%d}}]}`, bools, bools)
	boolBody := []byte(boolHeader)
	for i := range bools {
		boolBody = append(boolBody, byte(i/3%2))
	}

	cases := []struct {
		name, contentType string
		body              []byte
		headerLen         int
	}{
		{"json", "application/json", js.Bytes(), -1},
		{"binary", "application/octet-stream", bin, len(header)},
		{"bool", "application/octet-stream", boolBody, len(boolHeader)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(4 * n)
			b.ReportAllocs()
			// CPU time per call, which other processes' load does not stretch as it does
			// wall time (ns/op) on a shared machine.
			before := cpuTime(b)
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/v2/models/echo/versions/v1/infer", bytes.NewReader(c.body))
				req.Header.Set("Content-Type", c.contentType)
				req.Header.Set("X-API-Key", keyPredict)
				if c.headerLen >= 0 {
					req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(c.headerLen))
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body.String()[:min(rec.Body.Len(), 300)])
				}
			}
			b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N), "cpu-ns/op")
		})
	}
}
