package queuetest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/inferd/inferd/internal/testkit"
)

// receivedSpan is one span an OTLP receiver got, with its service.
type receivedSpan struct {
	service string
	span    *tracepb.Span
}

func (s receivedSpan) String() string {
	return fmt.Sprintf("%s: %q trace %x span %x parent %x", s.service, s.span.Name, s.span.TraceId, s.span.SpanId, s.span.ParentSpanId)
}

// otlpReceiver is a real OTLP/HTTP traces endpoint: it decodes each protobuf
// ExportTraceServiceRequest posted to /v1/traces and keeps its spans.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []receivedSpan
}

func startOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP receiver: %s %s %s", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
			http.Error(w, "want a protobuf POST to /v1/traces", http.StatusBadRequest)
			return
		}
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		var export coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &export)
		}
		if err != nil {
			t.Errorf("OTLP receiver: decoding an export: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range export.ResourceSpans {
			service := ""
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.spans = append(r.spans, receivedSpan{service: service, span: s})
				}
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

// trace returns the spans received of one trace.
func (r *otlpReceiver) trace(id []byte) []receivedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []receivedSpan
	for _, s := range r.spans {
		if string(s.span.TraceId) == string(id) {
			out = append(out, s)
		}
	}
	return out
}

// TestTraceAcrossProcesses: a job submitted to an inferd server with a traceparent,
// run by an inferd-worker (queue mode, a real Redis), is one trace across both
// processes, exported by both over OTLP/HTTP to a real receiver: the server's span
// joins the caller's trace, and the worker's job span has that trace id and the
// server's job send span as its parent, with the worker's pipeline spans under it.
// Both processes export only when they stop (the batch processor's delay is a
// minute), so the spans arriving shows that a shutdown flushes them.
func TestTraceAcrossProcesses(t *testing.T) {
	t.Parallel()
	recv := startOTLPReceiver(t)
	c := newCluster(t)
	// An endpoint alone turns tracing on (OTEL_TRACES_EXPORTER unset).
	otel := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL, "OTEL_BSP_SCHEDULE_DELAY=60000", "SHUTDOWN_DRAIN=0s"}
	s := c.startServer(otel...)
	w := c.startWorker(otel...)

	const traceID, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	req := s.api.NewRequest(http.MethodPost, "/predict/async", devKey, `{"model":"echo","version":"v1","data":{"traced":true}}`)
	req.Header.Set("traceparent", "00-"+traceID+"-"+callerSpan+"-01")
	resp := s.api.Do(req)
	if resp.Status != http.StatusOK {
		t.Fatalf("submit: %d %s", resp.Status, resp.Body)
	}
	var sub struct {
		JobID string `json:"job_id"`
	}
	resp.JSON(t, &sub)
	s.waitStatus(t, sub.JobID, "succeeded", 30*time.Second)
	// Info lines reach the log in batches (at most 100 ms late).
	testkit.Eventually(t, 5*time.Second, func() bool {
		return strings.Contains(s.Logs(), `trace_id=`+traceID)
	}, "a server log line names the caller's trace")

	s.Signal(syscall.SIGTERM)
	w.Signal(syscall.SIGTERM)
	waitExit(t, s.Proc, 30*time.Second)
	waitExit(t, w.Proc, 30*time.Second)

	id, _ := hex.DecodeString(traceID)
	spans := recv.trace(id)
	find := func(service, name string) receivedSpan {
		t.Helper()
		for _, s := range spans {
			if s.service == service && s.span.Name == name {
				return s
			}
		}
		t.Fatalf("no span %q from %s in trace %s; got:\n%v", name, service, traceID, spans)
		return receivedSpan{}
	}
	srv := find("inferd", "POST /predict/async")
	if hex.EncodeToString(srv.span.ParentSpanId) != callerSpan || srv.span.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("server span %v, want a server span under the caller's", srv)
	}
	send := find("inferd", "job send")
	if string(send.span.ParentSpanId) != string(srv.span.SpanId) || send.span.Kind != tracepb.Span_SPAN_KIND_PRODUCER {
		t.Errorf("job send %v, want a producer span under the server span", send)
	}
	run := find("inferd-worker", "job run")
	if string(run.span.ParentSpanId) != string(send.span.SpanId) || run.span.Kind != tracepb.Span_SPAN_KIND_CONSUMER {
		t.Errorf("job run %v, want a consumer span under the server's job send", run)
	}
	model := find("inferd-worker", "model")
	if string(model.span.ParentSpanId) != string(run.span.SpanId) {
		t.Errorf("model stage %v, want it under the worker's job run", model)
	}
	rt := find("inferd-worker", "runtime")
	if string(rt.span.ParentSpanId) != string(model.span.SpanId) {
		t.Errorf("runtime %v, want it under the model stage", rt)
	}
	attrs := map[string]string{}
	for _, kv := range run.span.Attributes {
		attrs[kv.Key] = fmt.Sprint(kv.Value.GetStringValue())
	}
	if attrs["inferd.job.id"] != sub.JobID || attrs["inferd.model"] != "echo" || attrs["inferd.model.version"] != "v1" {
		t.Errorf("job run attributes %v", run.span.Attributes)
	}
}
