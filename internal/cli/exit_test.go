package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
)

func TestExitCodeAndMessage(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"usage", usagef("bad %s", "flag"), ExitUsage, "bad flag"},
		{"400", &client.Error{Status: 400, Code: "invalid_input", Detail: "data: expected 4 numbers, got 3", RequestID: "r1"}, ExitClient,
			"400 invalid_input: data: expected 4 numbers, got 3 (request r1)"},
		{"404 without detail", &client.Error{Status: 404, Code: "not_found", Title: "Not found"}, ExitClient, "404 not_found: Not found"},
		{"429 with Retry-After", &client.Error{Status: 429, Code: "rate_limited", Detail: "slow down", RetryAfter: 2 * time.Second, RequestID: "r"}, ExitClient,
			"429 rate_limited: slow down; retry after 2s (request r)"},
		{"401", &client.Error{Status: 401, Code: "unauthorized"}, ExitAuth, "401 unauthorized"},
		{"403", &client.Error{Status: 403, Code: "forbidden"}, ExitAuth, "403 forbidden"},
		{"500", &client.Error{Status: 500, Code: "execution_error", Detail: "boom\n  at line 2"}, ExitServer, "500 execution_error: boom at line 2"},
		{"503", &client.Error{Status: 503, Code: "model_loading"}, ExitServer, "503 model_loading"},
		{"wrapped", fmt.Errorf("chunk: %w", &client.Error{Status: 413, Code: "payload_too_large"}), ExitClient, "413 payload_too_large"},
		{"unreachable", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, ExitServer, "dial tcp: connection refused"},
		{"timeout", fmt.Errorf("inferd: waiting: %w", context.DeadlineExceeded), ExitServer, "waiting: context deadline exceeded"},
		{"job failed", &client.JobError{Record: &client.JobRecord{JobId: "j", Status: client.JobFailed}}, ExitJobFailed, "job j failed"},
		{"job cancelled", &client.JobError{Record: &client.JobRecord{JobId: "j", Status: client.JobCancelled}}, ExitCancelled, "job j cancelled"},
		{"not found locally", notFoundError("no model named \"x\""), ExitClient, "no model named \"x\""},
		{"other", errors.New("open x: no such file"), ExitError, "open x: no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.code {
				t.Errorf("exit code %d, want %d", got, tc.code)
			}
			if got := message(tc.err); got != tc.msg {
				t.Errorf("message %q, want %q", got, tc.msg)
			}
		})
	}
}
