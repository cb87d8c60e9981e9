package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"
	"strconv"
)

// oipTensorBytes is the default size of the FP32 tensor of the Open Inference Protocol
// cases: 1 MiB, where sending it as JSON text or as raw bytes makes the difference.
const oipTensorBytes = 1 << 20

// oipMaxRequestBytes is the MAX_REQUEST_BYTES of the server the harness starts: the
// JSON spelling of the tensor is about three times its size.
const oipMaxRequestBytes = 16 << 20

// oipValues are the tensor's values: varied, so that their JSON has the length real
// data's would.
func oipValues(size int) []float32 {
	v := make([]float32, size/4)
	for i := range v {
		v[i] = float32(math.Sin(float64(i))) * 100
	}
	return v
}

// oipJSONBody is an infer request of one FP32 tensor of shape [1, len(v)] for input
// name, in JSON; the answer is JSON.
func oipJSONBody(name string, v []float32) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"inputs":[{"name":%q,"shape":[1,%d],"datatype":"FP32","data":[`, name, len(v))
	buf := make([]byte, 0, 32)
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(strconv.AppendFloat(buf[:0], float64(f), 'g', -1, 32))
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
}

// oipBinaryBody is the same request with the binary data extension both ways: the JSON
// header, then the raw little-endian tensor; it asks for the outputs as binary too.
func oipBinaryBody(name string, v []float32) (body []byte, headerLen int) {
	header := fmt.Sprintf(`{"inputs":[{"name":%q,"shape":[1,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`, name, len(v), 4*len(v))
	body = append(make([]byte, 0, len(header)+4*len(v)), header...)
	return appendFP32(body, v), len(header)
}

// appendFP32 appends v as raw little-endian FP32, the binary data extension's and
// raw_input_contents' spelling.
func appendFP32(b []byte, v []float32) []byte {
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// oipOp posts an infer request; headerLen >= 0 sends it as the binary data extension.
func oipOp(url string, body []byte, headerLen int) Op {
	headers := jsonHeaders
	if headerLen >= 0 {
		headers = []Header{
			{"Content-Type", "application/octet-stream"},
			{"Inference-Header-Content-Length", strconv.Itoa(headerLen)},
			{"X-API-Key", devKey},
		}
	}
	return func(_ context.Context, c *Conn) (int, error) {
		return 1, c.Do(http.MethodPost, url, headers, body, nil)
	}
}
