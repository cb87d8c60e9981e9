package app_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/app"
	"github.com/inferd/inferd/internal/telemetry"
	"github.com/inferd/inferd/internal/testkit"
)

// tracedApp is a server traced into memory, with its JSON log.
type tracedApp struct {
	*started
	spans *tracetest.InMemoryExporter
	log   *apitest.Log
}

func startTraced(t *testing.T, env map[string]string) *tracedApp {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	log := &apitest.Log{}
	s := startAppWith(t, env, true, app.Options{Logger: slog.New(slog.NewJSONHandler(log, nil)), TracerProvider: tp})
	return &tracedApp{started: s, spans: spans, log: log}
}

// traceOf finds the access log line of the request that got resp, and returns its
// trace id and the spans of that trace once its server span has ended.
func (a *tracedApp) traceOf(t *testing.T, requestID string) (trace.TraceID, tracetest.SpanStubs) {
	t.Helper()
	var id trace.TraceID
	var spans tracetest.SpanStubs
	testkit.Eventually(t, 20*time.Second, func() bool {
		var line struct {
			TraceID string `json:"trace_id"`
			SpanID  string `json:"span_id"`
		}
		if !a.log.AccessLine(requestID, &line) {
			return false
		}
		var err error
		if id, err = trace.TraceIDFromHex(line.TraceID); err != nil {
			t.Fatalf("the access log line of %s has no trace id:\n%s", requestID, a.log)
		}
		spans = nil
		server := false
		for _, s := range a.spans.GetSpans() {
			if s.SpanContext.TraceID() == id {
				spans = append(spans, s)
				server = server || (s.SpanKind == trace.SpanKindServer && s.SpanContext.SpanID().String() == line.SpanID)
			}
		}
		return server
	}, "an access log line with a trace id, and an ended server span, for request %s:\n%s", requestID, a.log)
	return id, spans
}

func attrOf(s tracetest.SpanStub, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// one returns the only span named name whose parent is parent.
func one(t *testing.T, spans tracetest.SpanStubs, name string, parent tracetest.SpanStub) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name && s.Parent.SpanID() == parent.SpanContext.SpanID() {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one span %q under %q, got %d; the trace:\n%s", name, parent.Name, len(found), tree(spans))
	}
	return found[0]
}

func tree(spans tracetest.SpanStubs) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "  %s (%s) parent %s status %v %v\n", s.Name, s.SpanContext.SpanID(), s.Parent.SpanID(), s.Status.Code, s.Attributes)
	}
	return b.String()
}

// server returns the trace's server span.
func server(t *testing.T, spans tracetest.SpanStubs) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.SpanKind == trace.SpanKindServer {
			return s
		}
	}
	t.Fatalf("no server span:\n%s", tree(spans))
	return tracetest.SpanStub{}
}

// wantAttrs checks attributes of s: an int, a string, a bool or a []string each.
func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[attribute.Key]any) {
	t.Helper()
	for k, w := range want {
		v, ok := attrOf(s, k)
		var got any
		switch v.Type() {
		case attribute.INT64:
			got = int(v.AsInt64())
		case attribute.STRINGSLICE:
			got = strings.Join(v.AsStringSlice(), ",")
		default:
			got = v.AsInterface()
		}
		if !ok || fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("span %q: %s = %v (set %v), want %v", s.Name, k, got, ok, w)
		}
	}
}

// TestTracing: with tracing on (an in-memory exporter), each request is one trace: the
// server span named by its route, then validation, routing, each pipeline stage and
// the runtime call, with model, version and batch size, errors as error statuses; an
// incoming traceparent is joined, an in-process job's run joins its submission's
// trace, a call dynamic batching shared is in each caller's trace, and the access log
// line names the trace.
func TestTracing(t *testing.T) {
	a := startTraced(t, map[string]string{"MODELS_DIR": batchingRepo(t), "RATE_LIMIT_RPS": "0"})
	post := func(path, body string, header ...string) (int, string, string) {
		t.Helper()
		req := a.c.NewRequest(http.MethodPost, path, "dev-key", body)
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp := a.c.Do(req)
		return resp.Status, string(resp.Body), resp.Header.Get("X-Request-Id")
	}
	model := map[attribute.Key]any{telemetry.Model: "iris", telemetry.Version: "v1"}
	with := func(m map[attribute.Key]any, kv ...any) map[attribute.Key]any {
		out := map[attribute.Key]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(attribute.Key)] = kv[i+1]
		}
		return out
	}

	t.Run("sync predict", func(t *testing.T) {
		code, body, id := post("/predict", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`)
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		_, spans := a.traceOf(t, id)
		srv := server(t, spans)
		if srv.Name != "POST /predict" || srv.Parent.IsValid() {
			t.Errorf("server span %q with parent %v; want POST /predict, a root", srv.Name, srv.Parent.SpanID())
		}
		wantAttrs(t, srv, map[attribute.Key]any{"http.route": "/predict", telemetry.Operation: "predict"})
		if v := one(t, spans, telemetry.SpanValidate, srv); v.Status.Code == codes.Error {
			t.Errorf("validation of a valid request failed: %v", v.Status)
		}
		wantAttrs(t, one(t, spans, telemetry.SpanRoute, srv), with(model, telemetry.RequestedVersion, "v1"))
		wantAttrs(t, one(t, spans, "preprocess", srv), with(model, telemetry.BatchSize, 1, telemetry.Steps, "to_tensor"))
		m := one(t, spans, "model", srv)
		wantAttrs(t, m, with(model, telemetry.BatchSize, 1))
		wantAttrs(t, one(t, spans, telemetry.SpanRuntime, m), with(model, telemetry.BatchSize, 1, telemetry.BatchRequests, 1))
		wantAttrs(t, one(t, spans, "postprocess", srv), with(model, telemetry.BatchSize, 1, telemetry.Steps, "softmax,top_k,round"))
		if len(spans) != 7 {
			t.Errorf("want 7 spans, got %d:\n%s", len(spans), tree(spans))
		}
	})

	t.Run("batch predict, routed", func(t *testing.T) {
		code, body, id := post("/predict/batch", `{"model":"iris","items":[[5.1,3.5,1.4,0.2],[6.7,3.0,5.2,2.3],[5.9,3.0,4.2,1.5]]}`)
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		_, spans := a.traceOf(t, id)
		srv := server(t, spans)
		if srv.Name != "POST /predict/batch" {
			t.Errorf("server span %q", srv.Name)
		}
		route := one(t, spans, telemetry.SpanRoute, srv)
		ver, _ := attrOf(route, telemetry.Version)
		if v := ver.AsString(); v != "v1" && v != "v2" {
			t.Fatalf("the routing span picked %q:\n%s", v, tree(spans))
		}
		wantAttrs(t, route, map[attribute.Key]any{telemetry.Model: "iris", telemetry.RequestedVersion: ""})
		picked := map[attribute.Key]any{telemetry.Model: "iris", telemetry.Version: ver.AsString()}
		wantAttrs(t, one(t, spans, "preprocess", srv), with(picked, telemetry.BatchSize, 3))
		m := one(t, spans, "model", srv)
		wantAttrs(t, m, with(picked, telemetry.BatchSize, 3))
		// Batching of iris v1 is on, but a lone request is a call of its own.
		wantAttrs(t, one(t, spans, telemetry.SpanRuntime, m), with(picked, telemetry.BatchSize, 3, telemetry.BatchRequests, 1))
	})

	t.Run("invalid input", func(t *testing.T) {
		code, body, id := post("/predict", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4]}`)
		if code != http.StatusBadRequest {
			t.Fatalf("%d %s", code, body)
		}
		_, spans := a.traceOf(t, id)
		srv := server(t, spans)
		// A client's mistake is not the server span's error (semantic conventions); the
		// stage that found it is.
		if srv.Status.Code == codes.Error {
			t.Errorf("server span status %v for a 400", srv.Status)
		}
		wantAttrs(t, srv, map[attribute.Key]any{telemetry.ProblemCode: "invalid_input", "http.response.status_code": 400})
		pre := one(t, spans, "preprocess", srv)
		if pre.Status.Code != codes.Error || !strings.Contains(pre.Status.Description, "expected 4 numbers, got 3") {
			t.Errorf("preprocess status %v, want an error naming the mistake", pre.Status)
		}
		for _, s := range spans {
			if s.Name == "model" || s.Name == "postprocess" {
				t.Errorf("span %q after a failed preprocess", s.Name)
			}
		}
	})

	t.Run("unknown model", func(t *testing.T) {
		code, body, id := post("/predict", `{"model":"nope","data":1}`)
		if code != http.StatusBadRequest {
			t.Fatalf("%d %s", code, body)
		}
		_, spans := a.traceOf(t, id)
		route := one(t, spans, telemetry.SpanRoute, server(t, spans))
		if route.Status.Code != codes.Error {
			t.Errorf("route status %v for an unknown model", route.Status)
		}
		wantAttrs(t, route, map[attribute.Key]any{telemetry.Model: "nope"})
	})

	t.Run("invalid request", func(t *testing.T) {
		code, body, id := post("/predict", `{"model":"iris","data":[1],"extra":true}`)
		if code != http.StatusBadRequest {
			t.Fatalf("%d %s", code, body)
		}
		_, spans := a.traceOf(t, id)
		v := one(t, spans, telemetry.SpanValidate, server(t, spans))
		if v.Status.Code != codes.Error {
			t.Errorf("validate status %v for a request the contract refuses", v.Status)
		}
		if _, ok := attrOf(v, telemetry.ProblemCode); !ok {
			t.Errorf("validate span without the problem's code: %v", v.Attributes)
		}
	})

	t.Run("traceparent joined", func(t *testing.T) {
		const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		code, body, id := post("/predict", `{"model":"echo","data":{"a":1}}`, "traceparent", parent, "baggage", "tenant=acme")
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		tid, spans := a.traceOf(t, id)
		if tid.String() != "0af7651916cd43dd8448eb211c80319c" {
			t.Fatalf("trace %s, want the caller's", tid)
		}
		srv := server(t, spans)
		if srv.Parent.SpanID().String() != "b7ad6b7169203331" || !srv.Parent.IsRemote() {
			t.Errorf("server span's parent %v (remote %v), want the caller's span", srv.Parent.SpanID(), srv.Parent.IsRemote())
		}
		wantAttrs(t, one(t, spans, "model", srv), map[attribute.Key]any{telemetry.Model: "echo", telemetry.BatchSize: 1})
	})

	t.Run("in-process job", func(t *testing.T) {
		code, body, id := post("/predict/async", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`)
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		var sub struct {
			JobID string `json:"job_id"`
		}
		if err := json.Unmarshal([]byte(body), &sub); err != nil {
			t.Fatal(err)
		}
		waitFinished(t, a.c, sub.JobID)
		tid, spans := a.traceOf(t, id)
		send := one(t, spans, telemetry.SpanJobSend, server(t, spans))
		wantAttrs(t, send, with(model, telemetry.JobID, sub.JobID, telemetry.JobBatch, false))
		if send.SpanKind != trace.SpanKindProducer {
			t.Errorf("job send is a %v span", send.SpanKind)
		}
		// The run ends after the answer: wait for its span.
		var run tracetest.SpanStub
		testkit.Eventually(t, 20*time.Second, func() bool {
			for _, s := range a.spans.GetSpans() {
				if s.Name == telemetry.SpanJobRun && s.SpanContext.TraceID() == tid {
					run = s
				}
			}
			return run.Name != ""
		}, "the job run's span")
		if run.Parent.SpanID() != send.SpanContext.SpanID() || run.SpanKind != trace.SpanKindConsumer {
			t.Fatalf("job run %v with parent %v, want a consumer span under job send %v", run.Name, run.Parent.SpanID(), send.SpanContext.SpanID())
		}
		wantAttrs(t, run, with(model, telemetry.JobID, sub.JobID))
		var all tracetest.SpanStubs
		for _, s := range a.spans.GetSpans() {
			if s.SpanContext.TraceID() == tid {
				all = append(all, s)
			}
		}
		wantAttrs(t, one(t, all, telemetry.SpanRoute, run), with(model, telemetry.RequestedVersion, "v1"))
		m := one(t, all, "model", run)
		one(t, all, telemetry.SpanRuntime, m)
	})

	t.Run("shared call in each caller's trace", func(t *testing.T) {
		// slow batches dynamically and takes 20 ms a call: 16 clients at once share
		// calls. A few waves make a slow machine's scheduling irrelevant.
		shared := false
		for wave := 0; wave < 10 && !shared; wave++ {
			ids := make([]string, 16)
			var wg sync.WaitGroup
			for i := range ids {
				wg.Go(func() {
					resp := a.c.Do(a.c.NewRequest(http.MethodPost, "/predict", "dev-key", fmt.Sprintf(`{"model":"slow","data":{"client":%d}}`, i)))
					if resp.Status != http.StatusOK {
						t.Errorf("client %d: %d %s", i, resp.Status, resp.Body)
					}
					ids[i] = resp.Header.Get("X-Request-Id")
				})
			}
			wg.Wait()
			calls := map[string][]int{} // a call's start and end -> the items it says it had
			for _, id := range ids {
				_, spans := a.traceOf(t, id)
				m := one(t, spans, "model", server(t, spans))
				rt := one(t, spans, telemetry.SpanRuntime, m)
				size, _ := attrOf(rt, telemetry.BatchSize)
				reqs, _ := attrOf(rt, telemetry.BatchRequests)
				if reqs.AsInt64() > 1 {
					shared = true
				}
				key := rt.StartTime.String() + rt.EndTime.String()
				calls[key] = append(calls[key], int(size.AsInt64()), int(reqs.AsInt64()))
			}
			// The callers of one call each record it, alike: as many as it says.
			for key, got := range calls {
				n := len(got) / 2
				for i := 0; i < len(got); i += 2 {
					if got[i+1] != n || got[i] != n {
						t.Errorf("call %s recorded by %d callers as %v (items, requests pairs)", key, n, got)
						break
					}
				}
			}
		}
		if !shared {
			t.Errorf("no runtime span of a call shared by several requests in 10 waves")
		}
	})

	t.Run("open inference protocol", func(t *testing.T) {
		code, body, id := post("/v2/models/iris/versions/v1/infer", `{"inputs":[{"name":"input","shape":[2,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2,6.7,3.0,5.2,2.3]}]}`)
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		_, spans := a.traceOf(t, id)
		srv := server(t, spans)
		if srv.Name != "POST /v2/models/{model_name}/versions/{model_version}/infer" {
			t.Errorf("server span %q", srv.Name)
		}
		wantAttrs(t, one(t, spans, telemetry.SpanRoute, srv), with(model, telemetry.RequestedVersion, "v1"))
		m := one(t, spans, "model", srv)
		wantAttrs(t, m, with(model, telemetry.BatchSize, 2))
		rt := one(t, spans, telemetry.SpanRuntime, m)
		if size, _ := attrOf(rt, telemetry.BatchSize); size.AsInt64() != 2 {
			t.Errorf("runtime batch size %d, want 2", size.AsInt64())
		}
		names := []string{}
		for _, s := range spans {
			names = append(names, s.Name)
		}
		if slices.Contains(names, "preprocess") {
			t.Errorf("a tensor call has no pipeline steps, got spans %v", names)
		}
	})
	t.Run("probes are not traced", func(t *testing.T) {
		const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		probes := []string{"/health", "/ready", "/metrics", "/v2/health/live", "/v2/health/ready"}
		for _, path := range probes {
			req := a.c.NewRequest(http.MethodGet, path, "", "")
			req.Header.Set("traceparent", parent) // a sampled caller's, even
			if resp := a.c.Do(req); resp.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", path, resp.Status, resp.Body)
			}
		}
		// A traced request after them: once its server span has ended, theirs would have.
		code, body, id := post("/predict", `{"model":"echo","data":1}`)
		if code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		a.traceOf(t, id)
		for _, s := range a.spans.GetSpans() {
			if s.SpanContext.TraceID().String() == "4bf92f3577b34da6a3ce929d0e0e4736" {
				t.Errorf("span %q of a probe", s.Name)
			}
			for _, path := range probes {
				if s.Name == "GET "+path {
					t.Errorf("span %q of a probe", s.Name)
				}
			}
		}
	})
}
