package problem

import (
	"errors"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/serve"
)

// Classify is the kind and code of a refusal for err, whichever protocol answers it: an
// *Error's own, a domain sentinel's, or Internal and internal_error for any other. An
// unknown model or version is NotFound when the request named it in its path
// (PathError), Invalid when in its body.
func Classify(err error) (Kind, string) {
	kind, code := classify(err)
	if code == CodeModelNotFound || code == CodeVersionNotFound {
		var pe PathError
		if errors.As(err, &pe) {
			kind = NotFound
		}
	}
	return kind, code
}

func classify(err error) (Kind, string) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Kind, pe.Code
	}
	switch {
	case errors.Is(err, serve.ErrModelUnloaded):
		return NotFound, CodeModelUnloaded
	case errors.Is(err, serve.ErrModelNotFound):
		return Invalid, CodeModelNotFound
	case errors.Is(err, serve.ErrVersionNotFound):
		return Invalid, CodeVersionNotFound
	case errors.Is(err, pipeline.ErrInvalidInput):
		return Invalid, CodeInvalidInput
	case errors.Is(err, serve.ErrLoading):
		return Unavailable, CodeModelLoading
	case errors.Is(err, serve.ErrUnavailable):
		return Unavailable, CodeModelUnavailable
	case errors.Is(err, serve.ErrReloadFailed):
		return Internal, CodeReloadFailed
	case errors.Is(err, job.ErrNotFound):
		return NotFound, CodeJobNotFound
	case errors.Is(err, job.ErrFinished):
		return Conflict, CodeJobFinished
	case errors.Is(err, job.ErrIdempotencyMismatch):
		return Mismatched, CodeIdempotencyReused
	case errors.Is(err, job.ErrIdempotencyInProgress):
		return Conflict, CodeIdempotencyInProgress
	case errors.Is(err, job.ErrJobLimit):
		return Limited, CodeJobsLimited
	case errors.Is(err, job.ErrUnknownQueue):
		return NotFound, CodeNotFound
	case errors.Is(err, job.ErrJobBytesLimit):
		return Limited, CodeJobBytesLimited
	case errors.Is(err, job.ErrJobTooLarge):
		return TooLarge, CodePayloadTooLarge
	case errors.Is(err, job.ErrQueueFull):
		return Unavailable, CodeQueueFull
	case errors.Is(err, job.ErrQueueUnavailable):
		return Unavailable, CodeQueueUnavailable
	case errors.Is(err, job.ErrShuttingDown):
		return Unavailable, CodeShuttingDown
	case errors.Is(err, auth.ErrUnauthenticated):
		return Unauthenticated, CodeUnauthorized
	case errors.Is(err, auth.ErrForbidden):
		return Forbidden, CodeForbidden
	case errors.Is(err, pipeline.ErrExecution):
		return Internal, CodeExecutionError
	}
	return Internal, CodeInternalError
}

// JobCode is the code a job's failed run is recorded with (its record's error_code):
// the code a synchronous prediction that failed so would answer with, and
// model_unloaded for a job whose model an operator unloaded before it could run.
func JobCode(err error) string {
	if _, ok := errors.AsType[*job.ResultTooLargeError](err); ok {
		return CodeResponseTooLarge
	}
	_, code := classify(err)
	return code
}
