package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/auth"
)

// Handler returns the whole HTTP API: the documents and Swagger UI, and every
// operation of the contract behind limits, validation, auth and rate limits.
func (s *Server) Handler() (http.Handler, error) {
	spec, err := api.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("loading the embedded contract: %w", err)
	}
	contract, err := inferd.Contract()
	if err != nil {
		return nil, fmt.Errorf("loading openapi.yaml: %w", err)
	}
	s.operations = operationIDs(contract)
	s.bodyless = bodylessRoutes(contract)
	s.gates = gateRoutes(contract)
	if s.limiter != nil {
		s.metrics.RateLimitedOperations(scopedOperations(contract, auth.ScopePredict), codeRateLimited)
	}

	r := chi.NewRouter()
	r.Use(s.closeWhileDraining, s.cors, headAsGet)
	r.NotFound(notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		// A HEAD arrives here as its GET, and must get the GET's answer byte for byte
		// (Content-Length included), so the detail names r.Method as routed.
		allow := allowedMethods(r)
		w.Header().Set("Allow", allow)
		writeProblem(w, r, http.StatusMethodNotAllowed, codeMethodNotAllowed, fmt.Sprintf("%s is not allowed on %s; use %s", r.Method, r.URL.Path, allow))
	})

	// The documents and Swagger UI are served outside the strict interface.
	if err := s.mountDocs(r); err != nil {
		return nil, err
	}

	if err := s.mountPprof(r, contract); err != nil {
		return nil, err
	}

	if s.opts.QueueUI != nil {
		ui := sameOriginWrites(s.requireScope(auth.ScopeAdmin, s.problemErrors(s.queueControls(s.opts.QueueUI))))
		r.Handle(queueUIPath, ui)
		r.Handle(queueUIPath+"/*", ui)
	}

	validate, err := s.validator(spec)
	if err != nil {
		return nil, err
	}
	strict := api.NewStrictHandlerWithOptions(s, nil, api.StrictHTTPServerOptions{
		RequestErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeProblem(w, r, http.StatusBadRequest, codeInvalidRequest, "body: "+firstLine(err.Error()))
		},
		ResponseErrorHandlerFunc: s.writeError,
	})
	// The operations' middlewares run after chi matched the route, outermost first. They
	// are chi's, which chains them once per route, rather than the generated wrapper's,
	// which chains them again on every request (see
	// docs/design.md#middleware-chained-once-per-route). The key is then also checked
	// before the wrapper parses any parameter.
	api.HandlerWithOptions(onePassHandlers{ServerInterface: strict, s: s}, api.ChiServerOptions{
		BaseRouter: r.With(s.gate, s.limitBody, s.tracedValidation(validate), s.plainJSON),
		ErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeProblem(w, r, http.StatusBadRequest, codeInvalidRequest, firstLine(err.Error()))
		},
	})
	return s.traced(s.observe(r)), nil
}

// operationIDs maps "METHOD /path/{param}" (chi's route pattern has the contract's
// shape) to the operation's id, the label of HTTP metrics.
func operationIDs(spec *openapi3.T) map[string]string {
	ops := map[string]string{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			ops[strings.ToUpper(method)+" "+path] = op.OperationID
		}
	}
	ops["GET /docs/*"] = ops["GET /docs"]
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		ops[m+" "+queueUIPath+"/*"] = ops["GET "+queueUIPath]
		ops[m+" "+queueUIPath] = ops["GET "+queueUIPath]
	}
	return ops
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, http.StatusNotFound, codeNotFound, fmt.Sprintf("no endpoint at %s; GET /openapi.yaml lists them", r.URL.Path))
}
