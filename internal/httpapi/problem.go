package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/problem"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// problemTypeBase prefixes every problem's type URI; the code completes it.
const problemTypeBase = "https://inferd.dev/problems/"

// Problem codes, by their names in package problem. They are part of the contract:
// clients switch on them.
const (
	codeInvalidRequest       = problem.CodeInvalidRequest
	codeInvalidInput         = problem.CodeInvalidInput
	codeModelNotFound        = problem.CodeModelNotFound
	codeVersionNotFound      = problem.CodeVersionNotFound
	codeUnauthorized         = problem.CodeUnauthorized
	codeForbidden            = problem.CodeForbidden
	codeJobNotFound          = problem.CodeJobNotFound
	codeJobFinished          = problem.CodeJobFinished
	codeNotFound             = problem.CodeNotFound
	codeMethodNotAllowed     = problem.CodeMethodNotAllowed
	codePayloadTooLarge      = problem.CodePayloadTooLarge
	codeResponseTooLarge     = problem.CodeResponseTooLarge
	codeUnsupportedMediaType = problem.CodeUnsupportedMediaType
	codeRateLimited          = problem.CodeRateLimited
	codeConcurrencyLimited   = problem.CodeConcurrencyLimited
	codeAuthThrottled        = problem.CodeAuthThrottled
	codeJobsLimited          = problem.CodeJobsLimited
	codeJobBytesLimited      = problem.CodeJobBytesLimited
	codeExecutionError       = problem.CodeExecutionError
	codeInternalError        = problem.CodeInternalError
	codeReloadFailed         = problem.CodeReloadFailed
	codeModelLoading         = problem.CodeModelLoading
	codeModelUnavailable     = problem.CodeModelUnavailable
	codeQueueFull            = problem.CodeQueueFull
	codeQueueUnavailable     = problem.CodeQueueUnavailable
	codeShuttingDown         = problem.CodeShuttingDown
	codeCancelled            = problem.CodeCancelled
	codeProfileInProgress    = problem.CodeProfileInProgress
	codeHeaderTooLarge       = problem.CodeHeaderTooLarge
	codeNotImplemented       = problem.CodeNotImplemented
	codeRequestTimeout       = problem.CodeRequestTimeout
)

var titles = map[string]string{
	codeInvalidRequest:       "Invalid request",
	codeInvalidInput:         "Invalid input",
	codeModelNotFound:        "Model not found",
	codeVersionNotFound:      "Version not found",
	codeUnauthorized:         "Unauthorized",
	codeForbidden:            "Forbidden",
	codeJobNotFound:          "Job not found",
	codeJobFinished:          "Job already finished",
	codeNotFound:             "Not found",
	codeMethodNotAllowed:     "Method not allowed",
	codePayloadTooLarge:      "Payload too large",
	codeResponseTooLarge:     "Response too large",
	codeUnsupportedMediaType: "Unsupported media type",
	codeRateLimited:          "Too many requests",
	codeConcurrencyLimited:   "Too many concurrent requests",
	codeAuthThrottled:        "Too many failed authentications",
	codeJobsLimited:          "Too many unfinished jobs",
	codeJobBytesLimited:      "Job records over the key's budget",
	codeExecutionError:       "Execution error",
	codeInternalError:        "Internal error",
	codeReloadFailed:         "Reload failed",
	codeModelLoading:         "Model loading",
	codeModelUnavailable:     "Model unavailable",
	codeQueueFull:            "Queue full",
	codeQueueUnavailable:     "Queue unavailable",
	codeShuttingDown:         "Shutting down",
	codeCancelled:            "Request cancelled",
	codeProfileInProgress:    "Profile in progress",
	codeHeaderTooLarge:       "Request header fields too large",
	codeNotImplemented:       "Not implemented",
	codeRequestTimeout:       "Request timeout",
}

// newProblem builds the body of a problem response for the request in ctx.
func newProblem(ctx context.Context, status int, code, detail string) api.Problem {
	p := api.Problem{
		Type:   problemTypeBase + code,
		Title:  titles[code],
		Status: status,
		Code:   code,
		Detail: detail,
	}
	if info := infoFrom(ctx); info != nil {
		p.RequestId = info.id
		p.Instance = &info.path
	}
	return p
}

// problemError is an error the HTTP layer itself finds (a limit, say), carrying the
// status and code it is answered with.
type problemError = problem.Error

// wordedInput is a pipeline input error worded with the field the client sent.
type wordedInput struct {
	err    error
	detail string
}

func (e *wordedInput) Error() string { return e.detail }
func (e *wordedInput) Unwrap() error { return e.err }

// inputIn words an input error of a predict body: the pipeline names the item by its
// index, the client named it data (a single request) or items[i] (a batch).
func inputIn(err error, batch bool) error {
	var ie *pipeline.InputError
	if !errors.As(err, &ie) {
		return err
	}
	root := "data"
	if batch {
		root = "items[" + strconv.Itoa(ie.Item) + "]"
	}
	return &wordedInput{err: err, detail: ie.In(root)}
}

// namedInPath marks err as about a model or version named in the request's path.
func namedInPath(err error) error { return problem.InPath(err) }

// classify maps an error to its status and code. The detail is the error's own
// message: domain errors are written to be read by the client.
func classify(err error) (int, string) {
	status, code := classifyDomain(err)
	if code == codeModelNotFound || code == codeVersionNotFound {
		var pe problem.PathError
		if errors.As(err, &pe) {
			status = http.StatusNotFound
		}
	}
	return status, code
}

func classifyDomain(err error) (int, string) {
	var pe *problemError
	if errors.As(err, &pe) {
		return pe.Status, pe.Code
	}
	switch {
	case errors.Is(err, registry.ErrModelNotFound):
		return http.StatusBadRequest, codeModelNotFound
	case errors.Is(err, registry.ErrVersionNotFound):
		return http.StatusBadRequest, codeVersionNotFound
	case errors.Is(err, pipeline.ErrInvalidInput):
		return http.StatusBadRequest, codeInvalidInput
	case errors.Is(err, registry.ErrLoading):
		return http.StatusServiceUnavailable, codeModelLoading
	case errors.Is(err, registry.ErrUnavailable):
		return http.StatusServiceUnavailable, codeModelUnavailable
	case errors.Is(err, registry.ErrReloadFailed):
		return http.StatusInternalServerError, codeReloadFailed
	case errors.Is(err, job.ErrNotFound):
		return http.StatusNotFound, codeJobNotFound
	case errors.Is(err, job.ErrFinished):
		return http.StatusConflict, codeJobFinished
	case errors.Is(err, job.ErrJobLimit):
		return http.StatusTooManyRequests, codeJobsLimited
	case errors.Is(err, job.ErrUnknownQueue):
		return http.StatusNotFound, codeNotFound
	case errors.Is(err, job.ErrJobBytesLimit):
		return http.StatusTooManyRequests, codeJobBytesLimited
	case errors.Is(err, job.ErrJobTooLarge):
		return http.StatusRequestEntityTooLarge, codePayloadTooLarge
	case errors.Is(err, job.ErrQueueFull):
		return http.StatusServiceUnavailable, codeQueueFull
	case errors.Is(err, job.ErrQueueUnavailable):
		return http.StatusServiceUnavailable, codeQueueUnavailable
	case errors.Is(err, job.ErrShuttingDown):
		return http.StatusServiceUnavailable, codeShuttingDown
	case errors.Is(err, auth.ErrUnauthenticated):
		return http.StatusUnauthorized, codeUnauthorized
	case errors.Is(err, auth.ErrForbidden):
		return http.StatusForbidden, codeForbidden
	case errors.Is(err, pipeline.ErrExecution):
		return http.StatusInternalServerError, codeExecutionError
	}
	return http.StatusInternalServerError, codeInternalError
}

// internalDetail answers every unexpected fault: its cause, which may hold internals,
// goes to the log under the request id instead.
const internalDetail = "the server failed unexpectedly; quote the request_id when you report it"

// problemFor builds the problem for a domain error. Unexpected errors are logged with
// the request id and answered without their text, which may hold internals.
func (s *Server) problemFor(ctx context.Context, err error) api.Problem {
	if ctx.Err() != nil {
		// The client went away (or the server is stopping) mid-pipeline: whatever
		// failed did so because its context ended, which is no fault to log as one.
		s.log.DebugContext(ctx, "request ended before its pipeline", "request_id", requestID(ctx), "error", err)
		return newProblem(ctx, http.StatusServiceUnavailable, codeCancelled, "the request was cancelled before its pipeline finished")
	}
	status, code := classify(err)
	detail := err.Error()
	if code == codeInternalError {
		s.log.ErrorContext(ctx, "unexpected error", "request_id", requestID(ctx), "error", err)
		detail = internalDetail
	}
	if code == codeModelUnavailable || code == codeReloadFailed {
		// The reason is a load error, which may quote the server's paths.
		s.log.DebugContext(ctx, "request refused: a version failed to load", "request_id", requestID(ctx), "error", err)
		detail = s.loadErrorText(err)
	}
	if code == codeExecutionError {
		s.log.ErrorContext(ctx, "pipeline failed", "request_id", requestID(ctx), "error", err)
	}
	return newProblem(ctx, status, code, detail)
}

// retryAfterSeconds is what 503 and 429 answers suggest when nothing better is known.
const retryAfterSeconds = problem.RetryAfterSeconds

// writeError answers a request whose handler failed: every error a handler returns
// becomes its problem here, and only here.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if ble, ok := errors.AsType[*job.BytesLimitError](err); ok {
		// Hours, often: the records that fill a key's budget go when they expire.
		w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(ble.RetryAfter)))
	}
	sendError(w, r, s.problemFor(r.Context(), err))
}

// writeProblem writes a problem found outside the handlers (middleware, routing).
func writeProblem(w http.ResponseWriter, r *http.Request, status int, code, detail string) {
	sendError(w, r, newProblem(r.Context(), status, code, detail))
}

func sendProblem(w http.ResponseWriter, p api.Problem) {
	if (p.Status == http.StatusServiceUnavailable || p.Status == http.StatusTooManyRequests) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // a detail may quote what the client sent; keep it as sent
	_ = enc.Encode(p)
}
