package httpapi

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"
)

// contractRoutes gives each operation of spec its route, keyed by method and path as
// chi's route pattern spells it (the contract's shape).
func contractRoutes(spec *openapi3.T) map[gateKey]*routers.Route {
	out := map[gateKey]*routers.Route{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			m := strings.ToUpper(method)
			out[gateKey{m, path}] = &routers.Route{Spec: spec, Path: path, PathItem: item, Method: m, Operation: op}
		}
	}
	return out
}

// matchedRoute is the contract's route for the one chi matched, with its path
// parameters as chi read them (as sent, escaped: the validator unescapes them): chi
// has already done the matching that gorillamux would do again, route by route, with
// regular expressions. A nil route means chi matched none of the contract's.
func matchedRoute(routes map[gateKey]*routers.Route, r *http.Request) (*routers.Route, map[string]string, error) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return nil, nil, nil
	}
	route := routes[gateKey{r.Method, rctx.RoutePattern()}]
	if route == nil {
		return nil, nil, nil
	}
	params := make(map[string]string, len(rctx.URLParams.Keys))
	for i, k := range rctx.URLParams.Keys {
		params[k] = rctx.URLParams.Values[i]
	}
	return route, params, nil
}
