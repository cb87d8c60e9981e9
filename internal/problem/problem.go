package problem

import "fmt"

// Problem codes. They are part of the contract: clients switch on them.
const (
	CodeInvalidRequest        = "invalid_request"
	CodeInvalidInput          = "invalid_input"
	CodeModelNotFound         = "model_not_found"
	CodeVersionNotFound       = "version_not_found"
	CodeUnauthorized          = "unauthorized"
	CodeForbidden             = "forbidden"
	CodeJobNotFound           = "job_not_found"
	CodeJobFinished           = "job_finished"
	CodeNotFound              = "not_found"
	CodeMethodNotAllowed      = "method_not_allowed"
	CodePayloadTooLarge       = "payload_too_large"
	CodeResponseTooLarge      = "response_too_large"
	CodeUnsupportedMediaType  = "unsupported_media_type"
	CodeRateLimited           = "rate_limited"
	CodeConcurrencyLimited    = "concurrency_limited"
	CodeAuthThrottled         = "auth_throttled"
	CodeJobsLimited           = "jobs_limited"
	CodeJobBytesLimited       = "job_bytes_limited"
	CodeExecutionError        = "execution_error"
	CodeInternalError         = "internal_error"
	CodeReloadFailed          = "reload_failed"
	CodeModelLoading          = "model_loading"
	CodeModelUnavailable      = "model_unavailable"
	CodeQueueFull             = "queue_full"
	CodeQueueUnavailable      = "queue_unavailable"
	CodeShuttingDown          = "shutting_down"
	CodeCancelled             = "request_cancelled"
	CodeProfileInProgress     = "profile_in_progress"
	CodeHeaderTooLarge        = "header_too_large"
	CodeNotImplemented        = "not_implemented"
	CodeRequestTimeout        = "request_timeout"
	CodeIdempotencyReused     = "idempotency_key_reused"
	CodeIdempotencyInProgress = "idempotency_key_in_progress"
	CodeCallbackNotAllowed    = "callback_not_allowed"
	// CodeModelUnloaded is a job's error code only (Record.Code): an operator unloaded
	// its model before it could run.
	CodeModelUnloaded = "model_unloaded"
)

// RetryAfterSeconds is what 503 and 429 answers suggest when nothing better is known.
const RetryAfterSeconds = 1

// Error is a refusal worded where it is found (a limit, say), carrying the kind and
// code it is answered with.
type Error struct {
	Kind   Kind
	Code   string
	Detail string
}

func (e *Error) Error() string { return e.Detail }

// PathError marks an error about a model or version named in the request's path: an
// unknown name there is a missing resource (404), where in a body it is a bad request
// (400).
type PathError struct{ Err error }

func (e PathError) Error() string { return e.Err.Error() }
func (e PathError) Unwrap() error { return e.Err }

// InPath marks err as about a model or version the request named in its path (over
// gRPC, in the call's model_name and model_version).
func InPath(err error) error { return PathError{err} }

// ResponseTooLarge refuses an answer of at least n bytes, over limit. 413 is the
// status of a request too large to serve: this one asks for more than the server
// sends, and the remedy is the same, to ask for less (a client that halves a batch on
// 413, as inferctl does, recovers); the code says which.
func ResponseTooLarge(n, limit int64, remedy string) error {
	return &Error{Kind: TooLarge, Code: CodeResponseTooLarge,
		Detail: fmt.Sprintf("the response would take at least %d bytes, more than MAX_RESPONSE_BYTES (%d) allows; %s", n, limit, remedy)}
}
