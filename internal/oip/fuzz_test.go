package oip

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/jsonscan/jsonscantest"
)

// FuzzDecode: any body with any Inference-Header-Content-Length is decoded without a
// panic into a request or an *Error (a client mistake, never another error); a request
// it accepts encodes back, its inputs as outputs the way the echo model answers, and
// the binary outputs read again give the same tensors. The seeds cover the JSON and
// binary forms, truncated and oversized binary parts and header lengths that do not fit
// the body; the committed corpus under testdata/fuzz/FuzzDecode adds what -fuzz found.
func FuzzDecode(f *testing.F) {
	// json is a plain JSON request; bin one with the binary data extension, whose
	// header length off moves from the header's end.
	json := func(h string) { f.Add([]byte(h), -1) }
	bin := func(h, b string, off int) { f.Add([]byte(h+b), len(h)+off) }
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,2.5]}]}`)
	json(`{"id":"a","inputs":[{"name":"x","shape":[1,2],"datatype":"INT64","data":[[1,-2]]}],"outputs":[{"name":"x","parameters":{"binary_data":true}}]}`)
	json(`{"inputs":[{"name":"s","shape":[2],"datatype":"BYTES","data":["a","\u00e9"]}]}`)
	json(`{"inputs":[{"name":"b","shape":[3],"datatype":"BOOL","data":[true,false,true]}]}`)
	json(`{"inputs":[{"name":"x","shape":[9223372036854775807,2],"datatype":"FP64","data":[]}]}`)
	json(`{"inputs":[]}`)
	json(`[]`)
	// Members named twice, strict dimensions, outputs asked for twice.
	json(`{"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1]}],"inputs":[]}`)
	json(`{"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1],"\u0064ata":[2]}]}`)
	json(`{"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1],"parameters":{"a":{"b":1,"b":2}}}]}`)
	json(`{"inputs":[{"name":"x","shape":["1"],"datatype":"INT8","data":[1]}]}`)
	json(`{"inputs":[{"name":"x","shape":[null],"datatype":"INT8","data":[1]}]}`)
	json(`{"inputs":[{"name":"x","shape":[1.0],"datatype":"INT8","data":[1]}]}`)
	json(`{"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[1]}],"outputs":[{"name":"x"},{"name":"x"}]}`)
	fp32 := `{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":8}}]}`
	bin(fp32, "\x00\x00\x80\x3f\x00\x00\x00\x40", 0)
	bin(fp32, "\x00\x00\x80\x3f", 0)                     // truncated binary part: 8 bytes declared, 4 sent
	bin(fp32, "\x00\x00\x80\x3f\x00\x00\x00\x40\x01", 0) // oversized: a byte after the last input's
	bin(fp32, "\x00\x00\x80\x3f\x00\x00\x00\x40", -20)   // a header length that cuts the JSON
	bin(fp32, "\x00\x00\x80\x3f\x00\x00\x00\x40", 3)     // one that takes binary bytes as JSON
	bin(fp32, "\x00\x00\x80\x3f\x00\x00\x00\x40", 100)   // one past the body
	bin(`{"inputs":[{"name":"s","shape":[2],"datatype":"BYTES","parameters":{"binary_data_size":13}}]}`, "\x05\x00\x00\x00abcde\x00\x00\x00\x00", 0)
	bin(`{"inputs":[{"name":"s","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":9}}]}`, "\xff\xff\xff\xffabcde", 0)
	bin(`{"inputs":[{"name":"h","shape":[2],"datatype":"FP16","parameters":{"binary_data_size":4}}],"parameters":{"binary_data_output":true}}`, "\x00\x7c\x01\x7e", 0)
	bin(`{"inputs":[{"name":"x","shape":[-1],"datatype":"FP32","parameters":{"binary_data_size":-4}}]}`, "", 0)
	bin(`{"inputs":[{"name":"a","shape":[1],"datatype":"UINT8","parameters":{"binary_data_size":1}},{"name":"b","shape":[1],"datatype":"INT16","parameters":{"binary_data_size":2}}]}`, "\x07\x01\x80", 0)
	// Data that is not JSON, which Decode checks as it reads it, beside other mistakes
	// that must not be answered first.
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,,2]}]}`)
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[01,2]}],"a":1,"a":2}`)
	json(`{"inputs":[{"name":"x","shape":[3],"datatype":"FP64","data":[[1,2],[3 4]]}]}`)
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1.,2e]}],"outputs":[{"name":"y"}]}`)
	json(`{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[-]},{"name":"","shape":[1],"datatype":"FP32","data":[1]}]}`)
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"INT32","data":[01,2]}]}`)
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP16","data":[0x1p-2,2]}]}`)
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"BOOL","data":[tru,false]}]}`)
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,2}]}]}`)
	json(`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,2]],"parameters":{"p":[1,2}}}]}`)
	f.Fuzz(func(t *testing.T, body []byte, headerLen int) {
		header, tail := body, []byte(nil)
		if headerLen >= 0 {
			if headerLen > len(body) {
				return // the HTTP layer answers 400 before decoding
			}
			header, tail = body[:headerLen], body[headerLen:]
		}
		req, err := Decode(header, tail)
		// Checking arrays as they are read gives the answer of checking the whole
		// header first, whatever the arrays deferred.
		want, wantErr := decode(header, tail, 0)
		for _, deferMin := range []int{1, 8, deferMin} {
			got, gotErr := decode(header, tail, deferMin)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !sameRequest(got, want) {
				t.Fatalf("decode(%q) deferring arrays of %d bytes: %v, %v; checked whole first: %v, %v", header, deferMin, got, gotErr, want, wantErr)
			}
		}
		// encoding/json accepts a member named twice (the last wins); Decode refuses
		// it, as a malformed request, whatever else is wrong with the request.
		if stdjson.Valid(header) && namesTwice(t, header) {
			var e *Error
			if !errors.As(err, &e) || !e.Malformed || !strings.Contains(e.Msg, "duplicate member") {
				t.Fatalf("Decode of a request naming a member twice: %v", err)
			}
			return
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Msg == "" {
				t.Fatalf("Decode: %T %v, want an *Error saying what to fix", err, err)
			}
			return
		}
		if len(req.Inputs) == 0 {
			t.Fatal("accepted a request without inputs")
		}
		out, n, err := Encode(Response{Model: "echo", Version: "v1", ID: req.ID, Outputs: req.Inputs}, func(string) bool { return true })
		if err != nil {
			t.Fatalf("Encode of the decoded inputs as binary outputs: %v", err)
		}
		// The answer is itself a request the decoder reads: outputs as inputs.
		again, err := Decode(bytes.Replace(out[:n], []byte(`"outputs"`), []byte(`"inputs"`), 1), out[n:])
		if err != nil {
			t.Fatalf("the encoded answer does not decode: %v\n%q", err, out)
		}
		for i, in := range req.Inputs {
			a, b := in.Tensor, again.Inputs[i].Tensor
			if a.DType != b.DType || len(a.Shape) != len(b.Shape) || a.Len() != b.Len() {
				t.Fatalf("input %d: %s %v became %s %v", i, a.DType, a.Shape, b.DType, b.Shape)
			}
			if !bytes.Equal(appendBinary(nil, a), appendBinary(nil, b)) {
				t.Fatalf("input %d: the bytes changed through Encode and Decode", i)
			}
		}
	})
}

// namesTwice reports whether valid JSON text has an object that names a member twice,
// as encoding/json's tokenizer reads the names.
func namesTwice(t *testing.T, b []byte) bool {
	_, _, found, err := jsonscantest.Duplicate(b)
	if err != nil {
		t.Fatalf("Duplicate: %v", err)
	}
	return found
}

// sameRequest compares decoded requests, their tensors by their bytes (NaN is not
// equal to itself).
func sameRequest(a, b *Request) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !reflect.DeepEqual(a.ID, b.ID) || !slices.Equal(a.Outputs, b.Outputs) || a.BinaryOutput != b.BinaryOutput || len(a.Inputs) != len(b.Inputs) {
		return false
	}
	for i, in := range a.Inputs {
		x, y := in.Tensor, b.Inputs[i].Tensor
		if in.Name != b.Inputs[i].Name || x.DType != y.DType || !slices.Equal(x.Shape, y.Shape) || !bytes.Equal(appendBinary(nil, x), appendBinary(nil, y)) {
			return false
		}
	}
	return true
}
