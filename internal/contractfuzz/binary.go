package contractfuzz

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
)

// The Open Inference Protocol's binary data extension (Triton's): an
// application/octet-stream body is a JSON header of Inference-Header-Content-Length
// bytes, then each input with parameters.binary_data_size as raw little-endian bytes.
const (
	headerLength = "Inference-Header-Content-Length"
	octetStream  = "application/octet-stream"
)

// binaryDatatypes are the datatypes a binary echo request draws from, with their
// element size (0: BYTES, each element a 4-byte length and its bytes).
var binaryDatatypes = []struct {
	name string
	size int
}{
	{"BOOL", 1}, {"UINT8", 1}, {"INT8", 1}, {"UINT16", 2}, {"INT16", 2}, {"UINT32", 4}, {"INT32", 4},
	{"UINT64", 8}, {"INT64", 8}, {"FP16", 2}, {"FP32", 4}, {"FP64", 8}, {"BYTES", 0},
}

// toBinary turns a request of an operation that takes the binary data extension into
// one that uses it: half the time an echo request of random tensors (raw bytes, NaN
// and infinities included, asking for binary or JSON outputs), else the request's own
// JSON body with the inputs whose data converts sent as raw bytes. It reports whether
// req is now a binary request.
func (g *Generator) toBinary(op Operation, req *Request) bool {
	if !op.Binary {
		return false
	}
	if req.Header.Get(headerLength) != "" {
		return true
	}
	var header, tail []byte
	if g.v.chance(0.5) {
		header, tail = g.echoBinary()
		if _, ok := req.params["model_name"]; ok {
			req.params["model_name"] = "echo"
			if _, ok := req.params["model_version"]; ok {
				req.params["model_version"] = "v1"
			}
			req.Path = fillPath(req.template, req.params, url.PathEscape)
		}
	} else {
		obj := g.bodyObject(req)
		if obj == nil {
			return false
		}
		tail = convertInputs(obj)
		var err error
		if header, err = json.Marshal(obj); err != nil {
			return false
		}
	}
	req.Body, req.HasBody = append(header, tail...), true
	req.Header.Set("Content-Type", octetStream)
	req.Header.Set(headerLength, strconv.Itoa(len(header)))
	return true
}

// echoBinary is a binary request for the echo model: one to three tensors of random
// bytes.
func (g *Generator) echoBinary() (header, tail []byte) {
	type input struct {
		Name       string         `json:"name"`
		Shape      []int          `json:"shape"`
		Datatype   string         `json:"datatype"`
		Parameters map[string]any `json:"parameters"`
	}
	body := map[string]any{}
	var inputs []input
	for i := range 1 + g.v.pick(3) {
		dt := binaryDatatypes[g.v.pick(len(binaryDatatypes))]
		n := 1 + g.v.pick(16)
		start := len(tail)
		for range n {
			switch dt.size {
			case 0:
				s := make([]byte, g.v.pick(8))
				for j := range s {
					s[j] = byte(g.v.r.UintN(256))
				}
				tail = binary.LittleEndian.AppendUint32(tail, uint32(len(s)))
				tail = append(tail, s...)
			default:
				for range dt.size {
					tail = append(tail, byte(g.v.r.UintN(256)))
				}
			}
		}
		if dt.name == "BOOL" { // only 0 and 1 are booleans
			for j := start; j < len(tail); j++ {
				tail[j] &= 1
			}
		}
		inputs = append(inputs, input{Name: "in" + strconv.Itoa(i), Shape: []int{1, n}, Datatype: dt.name,
			Parameters: map[string]any{"binary_data_size": len(tail) - start}})
	}
	body["inputs"] = inputs
	switch g.v.pick(3) {
	case 0:
		body["parameters"] = map[string]any{"binary_data_output": true}
	case 1:
		body["outputs"] = []any{map[string]any{"name": "in0", "parameters": map[string]any{"binary_data": true}}}
	}
	header, _ = json.Marshal(body)
	return header, tail
}

// convertInputs moves the data of every input of obj whose datatype, shape and
// values it can write as raw bytes to the binary part it returns, leaving the other
// inputs as they are.
func convertInputs(obj map[string]any) []byte {
	inputs, _ := obj["inputs"].([]any)
	var tail []byte
	for _, x := range inputs {
		in, ok := x.(map[string]any)
		if !ok {
			continue
		}
		dt, _ := in["datatype"].(string)
		data, ok := in["data"].([]any)
		if !ok {
			continue
		}
		raw, ok := rawValues(dt, flatten(data, nil))
		if !ok {
			continue
		}
		params, _ := in["parameters"].(map[string]any)
		if params == nil {
			params = map[string]any{}
		}
		params["binary_data_size"] = len(raw)
		in["parameters"] = params
		delete(in, "data")
		tail = append(tail, raw...)
	}
	return tail
}

func flatten(v []any, out []any) []any {
	for _, x := range v {
		if a, ok := x.([]any); ok {
			out = flatten(a, out)
		} else {
			out = append(out, x)
		}
	}
	return out
}

// rawValues writes values as the little-endian elements of datatype dt, or reports
// false when one of them is not of that type.
func rawValues(dt string, values []any) ([]byte, bool) {
	le := binary.LittleEndian
	var out []byte
	for _, v := range values {
		if dt == "BYTES" {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			out = append(le.AppendUint32(out, uint32(len(s))), s...)
			continue
		}
		if dt == "BOOL" {
			b, ok := v.(bool)
			if !ok {
				return nil, false
			}
			out = append(out, map[bool]byte{false: 0, true: 1}[b])
			continue
		}
		n, ok := v.(json.Number)
		if !ok {
			return nil, false
		}
		switch dt {
		case "FP32", "FP64":
			f, err := strconv.ParseFloat(n.String(), 64)
			if err != nil || dt == "FP32" && math.Abs(f) > math.MaxFloat32 {
				return nil, false
			}
			if dt == "FP32" {
				out = le.AppendUint32(out, math.Float32bits(float32(f)))
			} else {
				out = le.AppendUint64(out, math.Float64bits(f))
			}
		case "INT8", "INT16", "INT32", "INT64":
			bits := map[string]int{"INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64}[dt]
			i, err := strconv.ParseInt(n.String(), 10, bits)
			if err != nil {
				return nil, false
			}
			out = appendUint(out, uint64(i), bits/8)
		case "UINT8", "UINT16", "UINT32", "UINT64":
			bits := map[string]int{"UINT8": 8, "UINT16": 16, "UINT32": 32, "UINT64": 64}[dt]
			u, err := strconv.ParseUint(n.String(), 10, bits)
			if err != nil {
				return nil, false
			}
			out = appendUint(out, u, bits/8)
		default: // FP16 and unknown datatypes stay JSON
			return nil, false
		}
	}
	return out, true
}

func appendUint(b []byte, u uint64, size int) []byte {
	for i := range size {
		b = append(b, byte(u>>(8*i)))
	}
	return b
}

// binaryMutations are the mistakes of the binary data extension; each makes the
// request binary first.
func binaryMutations() []mutation {
	parts := func(req *Request) (header, tail []byte) {
		n, _ := strconv.Atoi(req.Header.Get(headerLength))
		return req.Body[:n], req.Body[n:]
	}
	return []mutation{
		{"binary part truncated", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			_, tail := parts(req)
			if len(tail) == 0 {
				return false
			}
			req.Body = req.Body[:len(req.Body)-1-g.v.pick(len(tail))]
			return true
		}},
		{"bytes after the binary part", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			req.Body = append(req.Body, bytes.Repeat([]byte{0x7f}, 1+g.v.pick(64))...)
			return true
		}},
		{"binary_data_size not what follows", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			header, tail := parts(req)
			sizes := []string{"-1", "-4", "9223372036854775807", "1e3", `"8"`, "0.5", "null", strconv.Itoa(len(tail) + 1 + g.v.pick(8))}
			// Every binary_data_size of the header is replaced, so no input accounts for
			// the bytes the way they follow.
			i := bytes.Index(header, []byte(`"binary_data_size":`))
			if i < 0 {
				return false
			}
			i += len(`"binary_data_size":`)
			j := i
			for j < len(header) && header[j] != ',' && header[j] != '}' {
				j++
			}
			bad := sizes[g.v.pick(len(sizes))]
			if bad == string(header[i:j]) {
				return false
			}
			h := append(append(append([]byte{}, header[:i]...), bad...), header[j:]...)
			req.Body = append(h, tail...)
			req.Header.Set(headerLength, strconv.Itoa(len(h)))
			return true
		}},
		{"Inference-Header-Content-Length past the body", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			req.Header.Set(headerLength, strconv.Itoa(len(req.Body)+1+g.v.pick(1<<20)))
			return true
		}},
		{"Inference-Header-Content-Length cutting the JSON", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			header, _ := parts(req)
			req.Header.Set(headerLength, strconv.Itoa(g.v.pick(len(header))))
			return true
		}},
		{"Inference-Header-Content-Length into the binary part", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			header, tail := parts(req)
			if len(tail) == 0 {
				return false
			}
			req.Header.Set(headerLength, strconv.Itoa(len(header)+1+g.v.pick(len(tail))))
			return true
		}},
		{"Inference-Header-Content-Length not a length", Invalid, http.StatusBadRequest, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			bad := []string{"-1", "abc", "1e3", "0x10", "99999999999999999999999", "12 ", "+5", "1.5"}
			req.Header.Set(headerLength, bad[g.v.pick(len(bad))])
			return true
		}},
		{"binary body without Inference-Header-Content-Length", Invalid, 0, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			_, tail := parts(req)
			req.Header.Del(headerLength)
			return len(tail) > 0
		}},
		{"Inference-Header-Content-Length on a JSON body", Odd, 0, func(g *Generator, op Operation, req *Request) bool {
			if !g.toBinary(op, req) {
				return false
			}
			req.Header.Set("Content-Type", "application/json")
			return true
		}},
	}
}
