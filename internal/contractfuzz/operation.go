package contractfuzz

import (
	"net/http"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// scopeExtension names the scope an operation needs, as the server reads it.
const scopeExtension = "x-required-scope"

// Operation is one method on one path of the contract.
type Operation struct {
	ID     string
	Method string
	Path   string // the template, e.g. /jobs/{job_id}
	Op     *openapi3.Operation
	// PathParams are the path's and the operation's path parameters.
	PathParams []*openapi3.Parameter
	Scope      string // "" for any valid key
	Secured    bool
	// Body is the JSON request body's schema; nil when the operation takes none.
	Body *openapi3.SchemaRef
	// BodyRequired: a request without a body is a mistake.
	BodyRequired bool
	// OIP: the operation is the Open Inference Protocol's (under /v2), whose bodies may
	// come without a Content-Type, as Triton's and KServe's clients send them.
	OIP bool
	// Binary: the body may also be application/octet-stream with the header
	// Inference-Header-Content-Length (the Open Inference Protocol's binary data
	// extension).
	Binary bool
}

// Declares reports whether the contract declares status for the operation.
func (o Operation) Declares(status int) bool {
	return o.Op.Responses.Status(status) != nil
}

// recording are the operations that hold every valid request for the `seconds` it
// asks for (30 by default): the CPU profile and the execution trace. The fuzzer leaves
// them to TestProfiling (internal/httpapi), which takes one-second recordings.
var recording = map[string]bool{"pprofCPU": true, "pprofTrace": true}

// Operations lists every operation of spec but the recording ones, sorted by path then
// method.
func Operations(spec *openapi3.T) []Operation {
	var out []Operation
	for _, path := range spec.Paths.InMatchingOrder() {
		item := spec.Paths.Value(path)
		for method, op := range item.Operations() {
			if recording[op.OperationID] {
				continue
			}
			o := Operation{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Op: op}
			for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range params {
					if p.Value != nil && p.Value.In == openapi3.ParameterInPath {
						o.PathParams = append(o.PathParams, p.Value)
					}
				}
			}
			if s, ok := op.Extensions[scopeExtension].(string); ok {
				o.Scope = s
			}
			security := spec.Security
			if op.Security != nil {
				security = *op.Security
			}
			o.Secured = len(security) > 0
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil {
					o.Body = mt.Schema
				}
				o.Binary = o.Body != nil && op.RequestBody.Value.Content.Get(octetStream) != nil
				o.BodyRequired = op.RequestBody.Value.Required
			}
			o.OIP = path == "/v2" || strings.HasPrefix(path, "/v2/")
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// otherMethod is a method the operation's path does not have, for a 405.
func otherMethod(spec *openapi3.T, path string) string {
	item := spec.Paths.Value(path)
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost} {
		if item.GetOperation(m) == nil {
			return m
		}
	}
	return ""
}
