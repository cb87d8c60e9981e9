package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// lockedBuffer is a log's output, written by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// accessLevel is the level of the access log line of the request that got resp.
func (b *lockedBuffer) accessLevel(t *testing.T, requestID string) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	sc := bufio.NewScanner(strings.NewReader(b.b.String()))
	for sc.Scan() {
		var line struct {
			Level, Msg string
			RequestID  string `json:"request_id"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "request" && line.RequestID == requestID {
			return line.Level
		}
	}
	t.Fatalf("no access log line for request %s:\n%s", requestID, b.b.String())
	return ""
}

// TestAccessLogLevels: a 5xx is logged at error, but not a readiness probe's 503,
// which is how it says "not yet" or "no longer".
func TestAccessLogLevels(t *testing.T) {
	out := &lockedBuffer{}
	failing := registry.Fixed{{Name: "failing", Versions: []registry.VersionSpec{{Version: "v1",
		Loader: fixed(&pipeline.Pipeline{Model: funcModel(func(context.Context, []any) ([]any, error) {
			return nil, errors.New("the runtime gave up")
		})})}}}}
	h := newHarness(t, func(s *setup) {
		s.opts.Logger = slog.New(slog.NewJSONHandler(out, nil))
		s.sources = append(s.sources, failing)
		s.noLoad = true
	})
	check := func(name string, resp *apitest.Response, status int, level string) {
		t.Helper()
		if resp.Status != status {
			t.Fatalf("%s: status %d, want %d: %s", name, resp.Status, status, resp.Body)
		}
		if got := out.accessLevel(t, resp.Header.Get("X-Request-Id")); got != level {
			t.Errorf("%s: logged at %s, want %s", name, got, level)
		}
	}
	check("/ready while loading", h.c.Get("/ready", ""), http.StatusServiceUnavailable, "INFO")
	check("/v2/health/ready while loading", h.c.Get("/v2/health/ready", ""), http.StatusServiceUnavailable, "INFO")
	h.reg.Load(context.Background())
	check("/ready once loaded", h.c.Get("/ready", ""), http.StatusOK, "INFO")
	check("a model that fails", h.c.Post("/predict", keyPredict, `{"model":"failing","data":1}`), http.StatusInternalServerError, "ERROR")
	h.srv.Drain()
	check("/ready while draining", h.c.Get("/ready", ""), http.StatusServiceUnavailable, "INFO")
}
