package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"syscall"
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
		{"a file that cannot be read", &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}, ExitError, "open x: no such file or directory"},
		{"batch: one of many failed", batchFailed(10, map[int]error{2: refused}), ExitPartial,
			"1 of 10 items failed (line 3 of f.jsonl); 9 answered"},
		{"batch: some failed", batchFailed(10, map[int]error{5: refused, 1: usagef("f.jsonl:2 is not a JSON value")}), ExitPartial,
			"2 of 10 items failed (lines 2 and 6 of f.jsonl); 8 answered"},
		{"batch: many failed", batchFailed(10, map[int]error{0: refused, 1: refused, 2: refused, 3: refused, 4: refused, 6: refused, 8: refused}), ExitPartial,
			"7 of 10 items failed (lines 1, 2, 3, 4, 5 and 2 more of f.jsonl); 3 answered"},
		{"batch: all refused", batchFailed(2, map[int]error{0: refused, 1: usagef("f.jsonl:2 is not a JSON value")}), ExitClient,
			"all 2 items of f.jsonl failed"},
		{"batch: all unreadable", batchFailed(2, map[int]error{1: refused, 0: usagef("f.jsonl:1 is not a JSON value")}), ExitUsage,
			"all 2 items of f.jsonl failed"},
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

// refused is the server's refusal of one item.
var refused = &client.Error{Status: 400, Code: "invalid_input", Detail: "items[0]: expected 4 numbers, got 3"}

// batchFailed is the end of a --continue-on-error run over n items, one a line from
// line 1, of which those in failed failed.
func batchFailed(n int, failed map[int]error) error {
	its := &items{name: "f.jsonl"}
	for i := range n {
		its.add(i+1, json.RawMessage("1"), nil)
	}
	return newBatchFailures(its, failed)
}
