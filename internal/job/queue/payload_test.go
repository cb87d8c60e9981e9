package queue

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/telemetry"
)

// TestPayloadTraceContext: a task carries its submission's trace context, a task
// without one (tracing off, or enqueued before tracing existed) decodes as before,
// and a recovery keeps the trace of the first task.
func TestPayloadTraceContext(t *testing.T) {
	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	traced := telemetry.Extract(context.Background(), telemetry.Carrier{"traceparent": traceparent, "baggage": "tenant=acme"})
	tests := []struct {
		name      string
		payload   []byte
		wantTrace string // the trace id the worker's context gets; "" none
	}{
		{"before tracing", []byte(`{"job_id":"j1","recovery":2}`), ""},
		{"untraced", mustTask(t, "j1", 2, telemetry.Inject(context.Background())), ""},
		{"traced", mustTask(t, "j1", 2, telemetry.Inject(traced)), "4bf92f3577b34da6a3ce929d0e0e4736"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := decodePayload(tt.payload)
			if err != nil || p.JobID != "j1" || p.Recovery != 2 {
				t.Fatalf("decoded %+v, %v", p, err)
			}
			sc := trace.SpanContextFromContext(telemetry.Extract(context.Background(), p.Trace))
			got := ""
			if sc.IsValid() {
				got = sc.TraceID().String()
			}
			if tt.wantTrace == "" && strings.Contains(string(tt.payload), "trace") {
				t.Errorf("an untraced task carries a trace: %s", tt.payload)
			}
			if got != tt.wantTrace {
				t.Errorf("trace %q, want %q (payload %s)", got, tt.wantTrace, tt.payload)
			}
			// A recovery's task is made from the decoded payload: it keeps the trace.
			again, err := decodePayload(mustTask(t, p.JobID, p.Recovery+1, p.Trace))
			if err != nil || len(again.Trace) != len(p.Trace) || again.Trace["traceparent"] != p.Trace["traceparent"] {
				t.Errorf("recovery payload %+v, %v; want the trace %v", again, err, p.Trace)
			}
		})
	}
}

func mustTask(t *testing.T, jobID string, recovery int, trace telemetry.Carrier) []byte {
	t.Helper()
	task, _ := TaskOptions{}.withDefaults().newTask(jobID, recovery, trace)
	return task.Payload()
}
