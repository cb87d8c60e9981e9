package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/canned"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
)

// problemTypeBase prefixes every problem's type URI; the code completes it.
const problemTypeBase = "https://inferd.dev/problems/"

var titles = map[string]string{
	problem.CodeInvalidRequest:        "Invalid request",
	problem.CodeInvalidInput:          "Invalid input",
	problem.CodeModelNotFound:         "Model not found",
	problem.CodeVersionNotFound:       "Version not found",
	problem.CodeUnauthorized:          "Unauthorized",
	problem.CodeForbidden:             "Forbidden",
	problem.CodeJobNotFound:           "Job not found",
	problem.CodeJobFinished:           "Job already finished",
	problem.CodeNotFound:              "Not found",
	problem.CodeMethodNotAllowed:      "Method not allowed",
	problem.CodePayloadTooLarge:       "Payload too large",
	problem.CodeResponseTooLarge:      "Response too large",
	problem.CodeUnsupportedMediaType:  "Unsupported media type",
	problem.CodeRateLimited:           "Too many requests",
	problem.CodeConcurrencyLimited:    "Too many concurrent requests",
	problem.CodeAuthThrottled:         "Too many failed authentications",
	problem.CodeJobsLimited:           "Too many unfinished jobs",
	problem.CodeJobBytesLimited:       "Job records over the key's budget",
	problem.CodeExecutionError:        "Execution error",
	problem.CodeInternalError:         "Internal error",
	problem.CodeReloadFailed:          "Reload failed",
	problem.CodeModelLoading:          "Model loading",
	problem.CodeModelUnavailable:      "Model unavailable",
	problem.CodeQueueFull:             "Queue full",
	problem.CodeQueueUnavailable:      "Queue unavailable",
	problem.CodeShuttingDown:          "Shutting down",
	problem.CodeCancelled:             "Request cancelled",
	problem.CodeProfileInProgress:     "Profile in progress",
	problem.CodeHeaderTooLarge:        "Request header fields too large",
	problem.CodeNotImplemented:        "Not implemented",
	problem.CodeRequestTimeout:        "Request timeout",
	problem.CodeIdempotencyReused:     "Idempotency key reused",
	problem.CodeIdempotencyInProgress: "Idempotency key in use",
	problem.CodeCallbackNotAllowed:    "Callback not allowed",
	problem.CodeModelUnloaded:         "Model unloaded",
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

// internalDetail answers every unexpected fault (problem.InternalDetail).
const internalDetail = problem.InternalDetail

// problemFor builds the problem for a domain error.
func (s *Server) problemFor(ctx context.Context, err error) api.Problem {
	kind, code, detail := s.word(ctx, err)
	return newProblem(ctx, kind.HTTPStatus(), code, detail)
}

// word is the kind, code and detail of the refusal for a domain error
// (problem.Wording), logged under the request's id.
func (s *Server) word(ctx context.Context, err error) (problem.Kind, string, string) {
	return s.wording.Word(ctx, requestID(ctx), err)
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
	if ipe, ok := errors.AsType[*job.InProgressError](err); ok {
		w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(ipe.RetryAfter)))
	}
	sendError(w, r, s.problemFor(r.Context(), err))
}

// ProblemListener wraps ln so that the answers net/http writes by itself, before any
// handler runs, are problems like every other answer (canned.Listener). Under /v2 they
// take the Open Inference Protocol's error shape, as every answer there does.
func ProblemListener(ln net.Listener) net.Listener {
	return canned.Listener(ln, canned.Config{Prefix: oipPrefix, Answer: cannedAnswer})
}

// cannedAnswer is the body of one of net/http's own answers, under a new request id.
func cannedAnswer(status int, code, detail string, oip bool) (body any, contentType, id string) {
	id = newRequestID()
	if oip {
		return api.OIPError{Error: detail, Code: code, RequestId: id}, "application/json", id
	}
	return api.Problem{Type: problemTypeBase + code, Title: titles[code], Status: status, Code: code, Detail: detail, RequestId: id}, "application/problem+json", id
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
