package validator

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/httpapi/operation"
)

// contractRoutes gives each operation of ops its route in spec, the validator's copy
// of the contract, which leaves out the operations served outside the strict
// interface (the queue dashboard): those have no route. The predict and infer
// operations, which the validator serves on paths of their own, must have theirs.
func contractRoutes(spec *openapi3.T, ops *operation.Table) (map[*operation.Operation]*routers.Route, error) {
	out := map[*operation.Operation]*routers.Route{}
	for _, o := range ops.All() {
		item := spec.Paths.Value(o.Pattern)
		var op *openapi3.Operation
		if item != nil {
			op = item.GetOperation(o.Method)
		}
		if op == nil || !strings.EqualFold(op.OperationID, o.ID) {
			if o.FastPath || o.OIP {
				return nil, fmt.Errorf("the validator's contract has no operation %s at %s %s", o.ID, o.Method, o.Pattern)
			}
			continue
		}
		out[o] = &routers.Route{Spec: spec, Path: o.Pattern, PathItem: item, Method: o.Method, Operation: op}
	}
	return out, nil
}

// matchedRoute is the contract's route for the one chi matched, with its path
// parameters as chi read them (as sent, escaped: the validator unescapes them): chi
// has already done the matching that gorillamux would do again, route by route, with
// regular expressions. A nil route means chi matched none of the contract's.
func matchedRoute(routes map[*operation.Operation]*routers.Route, op *operation.Operation, r *http.Request) (*routers.Route, map[string]string, error) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || op == nil {
		return nil, nil, nil
	}
	route := routes[op]
	if route == nil {
		return nil, nil, nil
	}
	params := make(map[string]string, len(rctx.URLParams.Keys))
	for i, k := range rctx.URLParams.Keys {
		params[k] = rctx.URLParams.Values[i]
	}
	return route, params, nil
}
