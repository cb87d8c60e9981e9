package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/httpapi"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/inproc"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
)

// benchHandler is the full handler without a socket, so the benchmark measures the
// server's own cost per request: routing, auth, the one decode and validation of the
// body, the pipeline, encoding, metrics and the log line.
func benchHandler(b *testing.B) http.Handler { return benchHandlerWith(b, 0) }

// benchHandlerWith is benchHandler with MAX_REQUEST_BYTES at maxRequestBytes (0: the
// default).
func benchHandlerWith(b *testing.B, maxRequestBytes int64) http.Handler {
	b.Helper()
	return benchHandlerOf(b, maxRequestBytes, echoSource())
}

// benchHandlerOf is benchHandlerWith serving the models of src.
func benchHandlerOf(b *testing.B, maxRequestBytes int64, src registry.Source) http.Handler {
	b.Helper()
	keys, _ := auth.Parse("bench", testKeys)
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
	prom := prometheus.NewRegistry()
	m := metrics.New(prom)
	reg := registry.New(registry.Options{Sources: []registry.Source{src}, Logger: log, Observer: m})
	if err := reg.Discover(context.Background()); err != nil {
		b.Fatal(err)
	}
	reg.Load(context.Background())
	store := memstore.New(memstore.Options{TTL: time.Hour})
	runner := inproc.New(&job.Executor{Store: store, Predictor: predictor{reg}}, inproc.Options{Logger: log})
	b.Cleanup(func() { _ = runner.Shutdown(context.Background()) })
	srv, err := httpapi.NewServer(httpapi.Options{
		Registry: reg, Jobs: &job.Service{Store: store, Submitter: job.Steps{Store: store, Runner: runner}}, Keys: auth.NewKeys(keys), Metrics: m,
		Gatherer: prom, Logger: log, MaxRequestBytes: maxRequestBytes,
	})
	if err != nil {
		b.Fatal(err)
	}
	h, err := srv.Handler()
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func BenchmarkPredict(b *testing.B) {
	h := benchHandler(b)
	for _, n := range []int{1, 100} {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(`{"id":%d,"features":[5.1,3.5,1.4,0.2],"tag":"sample"}`, i)
		}
		bodies := map[string]string{
			"/predict":       `{"model":"echo","version":"v1","data":` + items[0] + `}`,
			"/predict/batch": `{"model":"echo","version":"v1","items":[` + strings.Join(items, ",") + `]}`,
		}
		for path, body := range bodies {
			if path == "/predict" && n > 1 {
				continue
			}
			b.Run(fmt.Sprintf("%s/items=%d", path, n), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				requestLoop(b, h, http.MethodPost, path, body)
			})
		}
	}
}

// BenchmarkIris is one iris flower through the example repository's ONNX model, by
// /predict (the pipeline's JSON steps around the model) and as an Open Inference
// Protocol infer call (the tensor, through the steps that act on tensors: softmax and
// round), the two paths bench-http's tensors section compares: what each costs per
// request beside the other, without a socket.
func BenchmarkIris(b *testing.B) {
	repo := repository.New(repository.Options{Dir: "../../models", Backends: backend.Catalogue{onnx.NewBackend(onnxtest.Runtime(b))}})
	h := benchHandlerOf(b, 0, repo)
	cases := []struct{ name, path, body string }{
		{"predict", "/predict", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`},
		{"v2-infer", "/v2/models/iris/versions/v1/infer", `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			requestLoop(b, h, http.MethodPost, c.path, c.body)
		})
	}
}

// requestLoop sends method to path with body (JSON; "" is none) and the predict key
// for every round of b, each answer 200, and reports the CPU it took.
func requestLoop(b *testing.B, h http.Handler, method, path, body string) {
	cpu := startCPU(b)
	for b.Loop() {
		var req *http.Request
		if body == "" {
			req = httptest.NewRequest(method, path, nil)
		} else {
			req = httptest.NewRequest(method, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("X-API-Key", keyPredict)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	cpu.report()
}

// cpuClock reports the process's CPU time (user and system, every thread, the
// collector's included) per operation as cpu-ns/op. On a machine shared with other
// work, wall time per operation grows with the load; CPU time mostly does not.
type cpuClock struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) cpuClock { return cpuClock{b: b, start: cpuTime(b)} }

func (c cpuClock) report() {
	c.b.ReportMetric(float64(cpuTime(c.b)-c.start)/float64(c.b.N), "cpu-ns/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPollJob is a poll of a finished job, the request async clients send most:
// routing, auth, the contract's validation of the path and the record's encoding.
func BenchmarkPollJob(b *testing.B) {
	h := benchHandler(b)
	req := httptest.NewRequest(http.MethodPost, "/predict/async", strings.NewReader(`{"model":"echo","data":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", keyPredict)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var sub struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &sub); err != nil || rec.Code != http.StatusOK {
		b.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	b.ReportAllocs()
	requestLoop(b, h, http.MethodGet, "/predict/async/"+sub.JobID, "")
}
