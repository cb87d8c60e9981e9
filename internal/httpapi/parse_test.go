package httpapi_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
)

// answer is what a refusal says: a problem's code and detail, or the protocol's
// error under /v2.
func refusal(t *testing.T, path string, resp *apitest.Response) (code, detail string) {
	t.Helper()
	if strings.HasPrefix(path, "/v2") {
		e := resp.OIPError(t)
		return e.Code, e.Error
	}
	p := resp.Problem(t)
	return p.Code, p.Detail
}

// TestDuplicateMembers: a JSON body that names a member twice, in any object at any
// depth (data, items and tensors included), is 400 invalid_request naming the member
// and where it is, on every operation that takes a JSON body: the predict operations
// (one-pass decoder, fast and general paths), /v2 infer (JSON and binary forms) and the
// operations the generic validator reads. encoding/json and kin-openapi keep the last
// of the two, a proxy or firewall in front may keep the first: the model would run
// on what nothing checked. Names that only look alike are distinct, and the same name
// in sibling objects is no duplicate.
func TestDuplicateMembers(t *testing.T) {
	h := newHarness(t)
	const tensor = `{"name":"x","shape":[1],"datatype":"INT32","data":[7]}`
	tests := []struct {
		name, path, key, contentType, body string
		binary                             string // sent after body, in the binary data extension
		want                               string
	}{
		{"predict, top level", "/predict", keyPredict, "", `{"model":"echo","model":"nope","data":1}`, "", `duplicate member "model"`},
		{"predict, the first valid, the last not", "/predict", keyPredict, "", `{"model":"echo","model":5,"data":1}`, "", `duplicate member "model"`},
		{"predict, the first not valid, the last valid", "/predict", keyPredict, "", `{"model":5,"model":"echo","data":1}`, "", `duplicate member "model"`},
		{"predict, spelled with an escape", "/predict", keyPredict, "", `{"model":"echo","\u006dodel":"nope","data":1}`, "", `duplicate member "model"`},
		{"predict, in data", "/predict", keyPredict, "", `{"model":"echo","data":{"a":1,"b":[{"c":1,"c":2}]}}`, "", `duplicate member "c" in data.b[0]`},
		{"predict, charset in the media type", "/predict", keyPredict, "application/json; charset=utf-8", `{"model":"echo","data":{"a":1,"a":2}}`, "", `duplicate member "a" in data`},
		{"predict, past the linear scan", "/predict", keyPredict, "", `{"model":"echo","data":{` + members(40) + `,"m7":0}}`, "", `duplicate member "m7" in data`},
		{"batch, in an item", "/predict/batch", keyPredict, "", `{"model":"echo","items":[1,{"x":{"y":1,"y":2}}]}`, "", `duplicate member "y" in items[1].x`},
		{"async", "/predict/async", keyPredict, "", `{"model":"echo","data":1,"data":2}`, "", `duplicate member "data"`},
		{"async batch", "/predict/async/batch", keyPredict, "", `{"items":[1],"model":"echo","items":[2]}`, "", `duplicate member "items"`},
		{"infer, top level", "/v2/models/echo/infer", keyPredict, "", `{"inputs":[` + tensor + `],"inputs":[]}`, "", `duplicate member "inputs"`},
		{"infer, in a tensor", "/v2/models/echo/versions/v1/infer", keyPredict, "", `{"inputs":[{"name":"x","name":"y","shape":[1],"datatype":"INT32","data":[7]}]}`, "", `duplicate member "name" in inputs[0]`},
		{"infer, in parameters", "/v2/models/echo/infer", keyPredict, "", `{"inputs":[` + tensor + `],"parameters":{"binary_data_output":false,"binary_data_output":true}}`, "", `duplicate member "binary_data_output" in parameters`},
		{"infer, binary header", "/v2/models/echo/infer", keyPredict, "application/octet-stream",
			`{"inputs":[{"name":"x","shape":[1],"datatype":"INT8","parameters":{"binary_data_size":1,"binary_data_size":0}}]}`, "\x07", `duplicate member "binary_data_size" in inputs[0].parameters`},
		{"repository index", "/v2/repository/index", keyAdmin, "", `{"ready":true,"ready":false}`, "", `duplicate member "ready"`},
		{"repository load, the schema refusing the last", "/v2/repository/models/nope/load", keyAdmin, "", `{"parameters":{},"parameters":5}`, "", `duplicate member "parameters"`},
		{"repository unload, nested", "/v2/repository/models/nope/unload", keyAdmin, "", `{"parameters":{"unload_dependents":false,"unload_dependents":true}}`, "", `duplicate member "unload_dependents" in parameters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := h.c.NewRequest(http.MethodPost, tt.path, tt.key, tt.body+tt.binary)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if tt.binary != "" {
				req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(len(tt.body)))
			}
			resp := h.c.Do(req)
			if resp.Status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", resp.Status, resp.Body)
			}
			code, detail := refusal(t, tt.path, resp)
			if code != "invalid_request" || !strings.Contains(detail, tt.want) {
				t.Errorf("%s %q, want invalid_request with %q", code, detail, tt.want)
			}
		})
	}

	accepted := []struct{ name, path, body string }{
		{"same name in sibling objects", "/predict", `{"model":"echo","data":[{"a":1},{"a":2},{"b":{"a":3}}]}`},
		{"names alike but for case or escape", "/predict", `{"model":"echo","data":{"a":1,"A":2,"a\\u0000":3,"é":4,"e\u0301":5}}`},
		{"many distinct names", "/predict", `{"model":"echo","data":{` + members(500) + `}}`},
		{"same name in two tensors", "/v2/models/echo/infer", `{"inputs":[` + tensor + `,{"name":"y","shape":[1],"datatype":"INT32","data":[8]}]}`},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			if resp := h.c.Post(tt.path, keyPredict, tt.body); resp.Status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
		})
	}
}

// members is n distinct members m0 to mn-1, without braces.
func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"m%d":%d`, i, i)
	}
	return b.String()
}

// TestOIPStrictValues: what /v2 infer read leniently before, and now refuses with 400
// naming the member: a dimension spelled as a string, null, or a number with a
// fraction or exponent (Triton refuses them too); a boolean parameter that is null;
// an output asked for twice, which was answered twice.
func TestOIPStrictValues(t *testing.T) {
	h := newHarness(t)
	in := func(shape string) string {
		return `{"inputs":[{"name":"x","shape":` + shape + `,"datatype":"INT32","data":[7,8]}]}`
	}
	tests := []struct{ name, body, want string }{
		{"dimension a string", in(`["2"]`), `input "x": shape[0] is "2", a string; dimensions are whole numbers`},
		{"dimension null", in(`[null]`), `input "x": shape[0] is null; dimensions are whole numbers`},
		{"dimension with a fraction", in(`[2.0]`), `input "x": shape[0] is 2.0, a number with a fraction or exponent`},
		{"dimension with an exponent", in(`[1,2e0]`), `input "x": shape[1] is 2e0, a number with a fraction or exponent`},
		{"dimension a boolean", in(`[true]`), `input "x": shape[0] is true, a boolean`},
		{"dimension an array", in(`[[2]]`), `input "x": shape[0] is [2], an array`},
		{"dimension beyond int64", in(`[92233720368547758070]`), "shape[0] is 92233720368547758070, beyond any dimension"},
		{"binary_data null", `{"inputs":[{"name":"x","shape":[2],"datatype":"INT32","data":[7,8]}],"outputs":[{"name":"x","parameters":{"binary_data":null}}]}`,
			"outputs[0].parameters.binary_data must be true or false, got null"},
		{"binary_data_output null", `{"inputs":[{"name":"x","shape":[2],"datatype":"INT32","data":[7,8]}],"parameters":{"binary_data_output":null}}`,
			"parameters.binary_data_output must be true or false, got null"},
		{"output asked for twice", `{"inputs":[{"name":"x","shape":[2],"datatype":"INT32","data":[7,8]}],"outputs":[{"name":"x"},{"name":"x","parameters":{"binary_data":true}}]}`,
			`outputs[1] asks for output "x", as outputs[0] does; ask for each output once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.c.Post("/v2/models/echo/versions/v1/infer", keyPredict, tt.body)
			if resp.Status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", resp.Status, resp.Body)
			}
			if e := resp.OIPError(t); e.Code != "invalid_input" || !strings.Contains(e.Error, tt.want) {
				t.Errorf("%s %q, want invalid_input with %q", e.Code, e.Error, tt.want)
			}
		})
	}
	for _, shape := range []string{"[2]", "[-0,2]", "[1, 2 ]", "[1,2]"} {
		t.Run("whole numbers "+shape, func(t *testing.T) {
			body := in(shape)
			if shape == "[-0,2]" {
				body = `{"inputs":[{"name":"x","shape":[-0,2],"datatype":"INT32","data":[]}]}`
			}
			if resp := h.c.Post("/v2/models/echo/versions/v1/infer", keyPredict, body); resp.Status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
		})
	}
}
