package problem_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
)

// TestClassify pins the status and code every domain error is answered with, as the
// contract documents them.
func TestClassify(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{registry.ErrModelUnloaded, 404, problem.CodeModelUnloaded},
		{registry.ErrModelNotFound, 400, problem.CodeModelNotFound},
		{problem.InPath(registry.ErrModelNotFound), 404, problem.CodeModelNotFound},
		{registry.ErrVersionNotFound, 400, problem.CodeVersionNotFound},
		{problem.InPath(fmt.Errorf("v9: %w", registry.ErrVersionNotFound)), 404, problem.CodeVersionNotFound},
		{problem.InPath(registry.ErrLoading), 503, problem.CodeModelLoading},
		{pipeline.ErrInvalidInput, 400, problem.CodeInvalidInput},
		{registry.ErrLoading, 503, problem.CodeModelLoading},
		{registry.ErrUnavailable, 503, problem.CodeModelUnavailable},
		{registry.ErrReloadFailed, 500, problem.CodeReloadFailed},
		{job.ErrNotFound, 404, problem.CodeJobNotFound},
		{job.ErrFinished, 409, problem.CodeJobFinished},
		{job.ErrIdempotencyMismatch, 422, problem.CodeIdempotencyReused},
		{job.ErrIdempotencyInProgress, 409, problem.CodeIdempotencyInProgress},
		{job.ErrJobLimit, 429, problem.CodeJobsLimited},
		{job.ErrUnknownQueue, 404, problem.CodeNotFound},
		{job.ErrJobBytesLimit, 429, problem.CodeJobBytesLimited},
		{job.ErrJobTooLarge, 413, problem.CodePayloadTooLarge},
		{job.ErrQueueFull, 503, problem.CodeQueueFull},
		{job.ErrQueueUnavailable, 503, problem.CodeQueueUnavailable},
		{job.ErrShuttingDown, 503, problem.CodeShuttingDown},
		{auth.ErrUnauthenticated, 401, problem.CodeUnauthorized},
		{auth.ErrForbidden, 403, problem.CodeForbidden},
		{pipeline.ErrExecution, 500, problem.CodeExecutionError},
		{errors.New("disk on fire"), 500, problem.CodeInternalError},
		{&problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidRequest, Detail: "no"}, 400, problem.CodeInvalidRequest},
		{fmt.Errorf("wrapped: %w", &problem.Error{Kind: problem.Unavailable, Code: problem.CodeCancelled}), 503, problem.CodeCancelled},
		{&problem.Error{Code: problem.CodeInternalError}, 500, problem.CodeInternalError},
		{problem.ResponseTooLarge(10, 5, "ask for less"), 413, problem.CodeResponseTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			kind, code := problem.Classify(fmt.Errorf("calling: %w", tt.err))
			if kind.HTTPStatus() != tt.status || code != tt.code {
				t.Errorf("%d %s, want %d %s", kind.HTTPStatus(), code, tt.status, tt.code)
			}
		})
	}
}

// TestJobCode pins a failed job's error_code: a synchronous prediction's, and
// response_too_large for a result over MAX_RESPONSE_BYTES.
func TestJobCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unloaded", registry.ErrModelUnloaded, problem.CodeModelUnloaded},
		{"input", pipeline.ErrInvalidInput, problem.CodeInvalidInput},
		{"execution", pipeline.ErrExecution, problem.CodeExecutionError},
		{"result too large", &job.ResultTooLargeError{}, problem.CodeResponseTooLarge},
		{"other", errors.New("disk on fire"), problem.CodeInternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := problem.JobCode(tt.err); got != tt.want {
				t.Errorf("%s, want %s", got, tt.want)
			}
		})
	}
}
