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

// oipJSONBody is an infer request for echo with the tensor in JSON; the answer is JSON.
func oipJSONBody(size int) []byte {
	v := oipValues(size)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","data":[`, len(v))
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
// header, then the raw little-endian tensor; it asks for the output as binary too.
func oipBinaryBody(size int) (body []byte, headerLen int) {
	v := oipValues(size)
	header := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`, len(v), 4*len(v))
	body = append(make([]byte, 0, len(header)+4*len(v)), header...)
	for _, f := range v {
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(f))
	}
	return body, len(header)
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
