package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/middleware"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/httpapi/page"
	"github.com/inferd/inferd/internal/httpapi/unescape"
	"github.com/inferd/inferd/internal/httpapi/validator"
	"github.com/inferd/inferd/internal/problem"
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
	if s.ops, err = operation.Read(contract); err != nil {
		return nil, fmt.Errorf("reading openapi.yaml's operations: %w", err)
	}
	// The routes mounted under an operation's path are counted as that operation.
	docs, _ := s.ops.ID(http.MethodGet, "/docs")
	s.ops.Alias(http.MethodGet, "/docs/*", docs)
	queueUI, _ := s.ops.ID(http.MethodGet, page.QueuesPath)
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		s.ops.Alias(m, page.QueuesPath+"/*", queueUI)
		s.ops.Alias(m, page.QueuesPath, queueUI)
	}
	if s.admission.RateLimits() {
		s.metrics.RateLimitedOperations(s.ops.WithScope(auth.ScopePredict), problem.CodeRateLimited)
	}

	tracing := middleware.Tracing{Tracer: s.opts.Tracer, Provider: s.opts.TracerProvider, Untraced: middleware.ProbePaths(s.ops)}
	r := chi.NewRouter()
	r.Use(middleware.CloseWhile(s.draining.Load), middleware.CORS(s.opts.CORSAllowedOrigins), middleware.HeadAsGet)
	r.NotFound(notFound)
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		// A HEAD arrives here as its GET, and must get the GET's answer byte for byte
		// (Content-Length included), so the detail names r.Method as routed.
		allow := middleware.AllowedMethods(r)
		w.Header().Set("Allow", allow)
		writeProblem(w, r, http.StatusMethodNotAllowed, problem.CodeMethodNotAllowed, fmt.Sprintf("%s is not allowed on %s; use %s", r.Method, r.URL.Path, allow))
	})

	// The documents and Swagger UI, the profiles and the queue dashboard are served
	// outside the strict interface.
	pages := page.Pages{
		Problem: writeProblem, Error: s.writeError, NotFound: notFound, NoBody: noBody,
		Admin: func(next http.Handler) http.Handler { return s.requireScope(auth.ScopeAdmin, next) },
		Log:   s.log, RequestID: requestID,
	}
	if err := pages.Docs(r, s.opts.PublicURL); err != nil {
		return nil, err
	}
	if err := pages.Pprof(r, s.ops); err != nil {
		return nil, err
	}
	if s.opts.QueueUI != nil {
		if err := pages.Queues(r, s.opts.QueueUI, s.opts.QueueControl); err != nil {
			return nil, err
		}
	}

	validate, err := validator.New(validator.Config{
		Spec: spec, Operations: s.ops, Authenticate: s.authenticate, Fail: s.validationError,
		Authed: func(ctx context.Context) bool {
			info := infoFrom(ctx)
			return info != nil && info.authed
		},
		Decoded: func(ctx context.Context, in *validator.Input) {
			if info := infoFrom(ctx); info != nil {
				info.body = in
			}
		},
		OIPRead: func(ctx context.Context, body []byte) {
			if info := infoFrom(ctx); info != nil {
				info.oipBody = body
			}
		},
	})
	if err != nil {
		return nil, err
	}
	strict := api.NewStrictHandlerWithOptions(s, nil, api.StrictHTTPServerOptions{
		RequestErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeProblem(w, r, http.StatusBadRequest, problem.CodeInvalidRequest, "body: "+firstLine(err.Error()))
		},
		ResponseErrorHandlerFunc: s.writeError,
	})
	// The operations' middlewares run after chi matched the route, outermost first. They
	// are chi's, which chains them once per route, rather than the generated wrapper's,
	// which chains them again on every request (see
	// docs/design.md#middleware-chained-once-per-route). The key is then also checked
	// before the wrapper parses any parameter.
	//
	// The generated strict handler is bypassed for the predict operations (the table's
	// FastPath: predict, predictBatch, submitJob, submitBatchJob) and for the OIP infer
	// operations: onePassHandlers call the Server's methods with the body the validator
	// has already decoded or read, where the generated handler would decode the body a
	// second time, most of a prediction's CPU. Every other operation goes through the
	// generated handler.
	api.HandlerWithOptions(onePassHandlers{ServerInterface: strict, s: s}, api.ChiServerOptions{
		BaseRouter: r.With(s.gate, s.limitBody, tracing.Validation(validate.Middleware), unescape.HTML(decodedOnce)),
		ErrorHandlerFunc: func(w http.ResponseWriter, r *http.Request, err error) {
			writeProblem(w, r, http.StatusBadRequest, problem.CodeInvalidRequest, firstLine(err.Error()))
		},
	})
	return tracing.Handler(s.observe(r)), nil
}

// decodedOnce reports whether the validator decoded r's body for the predict
// operations' handlers, which answer through writeJSON: it never escapes HTML, so
// their answers need no unescaping.
func decodedOnce(r *http.Request) bool {
	info := infoFrom(r.Context())
	return info != nil && info.body != nil
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, http.StatusNotFound, problem.CodeNotFound, fmt.Sprintf("no endpoint at %s; GET /openapi.yaml lists them", r.URL.Path))
}

// noBody refuses a request body on the pages, served outside the generated server.
func noBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuseBody(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireScope guards pages outside the contract's validator. A browser cannot add
// X-API-Key to a page's own requests, so the key is also taken from HTTP Basic
// authentication's password, and a 401 asks the browser for it.
func (s *Server) requireScope(scope auth.Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p auth.Principal
		key, err := apiKey(r)
		if err == nil && key == "" {
			_, key, _ = r.BasicAuth()
		}
		if err == nil {
			p, err = s.checkKey(r, key, scope)
		}
		switch {
		case errors.Is(err, auth.ErrForbidden):
			writeProblem(w, r, http.StatusForbidden, problem.CodeForbidden, err.Error()+"; use a key that holds it")
		case errors.Is(err, auth.ErrUnauthenticated):
			w.Header().Set("WWW-Authenticate", `Basic realm="inferd admin", charset="UTF-8"`)
			writeProblem(w, r, http.StatusUnauthorized, problem.CodeUnauthorized, unauthorizedDetail(err, "send an admin API key in X-API-Key, or as the password of HTTP Basic authentication"))
		case err != nil:
			s.writeLimit(w, r, err)
		default:
			n, err := s.admit(r, p, scope)
			if err != nil {
				s.writeLimit(w, r, err)
				return
			}
			if n != nil {
				defer n.Add(-1)
			}
			// The dashboard's own writes carry small JSON bodies; none may be larger
			// than an API request.
			if r.Body != nil && r.Body != http.NoBody {
				r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes)
			}
			next.ServeHTTP(w, r)
		}
	})
}
