package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
)

// TestProfiling checks /debug/pprof/*: admin keys only, the answers' types, a short
// CPU profile, one CPU profile at a time, and the query checked against the contract.
func TestProfiling(t *testing.T) {
	h := newHarness(t)
	gzipMagic := []byte{0x1f, 0x8b}
	tests := []struct {
		name, path, key string
		status          int
		contentType     string
		body            []byte // the body starts with it
	}{
		{"index", "/debug/pprof", keyAdmin, 200, "text/html", []byte("<html>")},
		{"heap", "/debug/pprof/heap", keyAdmin, 200, "application/octet-stream", gzipMagic},
		{"heap as text after a collection", "/debug/pprof/heap?debug=1&gc=1", keyAdmin, 200, "text/plain", []byte("heap profile:")},
		{"goroutines", "/debug/pprof/goroutine?debug=2", keyAdmin, 200, "text/plain", []byte("goroutine ")},
		{"allocs", "/debug/pprof/allocs", keyAdmin, 200, "application/octet-stream", gzipMagic},
		{"a one-second CPU profile", "/debug/pprof/profile?seconds=1", keyAdmin, 200, "application/octet-stream", gzipMagic},
		{"a one-second trace", "/debug/pprof/trace?seconds=1", keyAdmin, 200, "application/octet-stream", []byte("go ")},
		{"cmdline", "/debug/pprof/cmdline", keyAdmin, 200, "text/plain", nil},
		{"symbol", "/debug/pprof/symbol", keyAdmin, 200, "text/plain", []byte("num_symbols:")},
		{"no key", "/debug/pprof/heap", "", 401, "application/problem+json", nil},
		{"an unknown key", "/debug/pprof", keyUnknown, 401, "application/problem+json", nil},
		{"a predict key", "/debug/pprof/profile?seconds=1", keyPredict, 403, "application/problem+json", nil},
		{"a read key", "/debug/pprof/goroutine", keyRead, 403, "application/problem+json", nil},
		{"seconds out of range", "/debug/pprof/profile?seconds=0", keyAdmin, 400, "application/problem+json", nil},
		{"debug not a number", "/debug/pprof/heap?debug=x", keyAdmin, 400, "application/problem+json", nil},
		{"no such profile", "/debug/pprof/nope", keyAdmin, 404, "application/problem+json", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.status == http.StatusOK {
				skipTimedProfile(t, tt.path)
			}
			resp := h.c.Do(h.c.NewRequest(http.MethodGet, tt.path, tt.key, nil))
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %.200s", resp.Status, tt.status, resp.Body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tt.contentType)
			}
			if !bytes.HasPrefix(resp.Body, tt.body) {
				t.Errorf("body starts %q, want %q", resp.Body[:min(len(resp.Body), 20)], tt.body)
			}
		})
	}
	t.Run("the index links the profiles under /debug/pprof/", func(t *testing.T) {
		resp := h.c.Do(h.c.NewRequest(http.MethodGet, "/debug/pprof", keyAdmin, nil))
		if !bytes.Contains(resp.Body, []byte(`<base href="pprof/">`)) || !bytes.Contains(resp.Body, []byte("heap?debug=1")) {
			t.Errorf("index: %.400s", resp.Body)
		}
	})
	t.Run("one CPU profile at a time", func(t *testing.T) {
		skipTimedProfile(t, "/debug/pprof/profile?seconds=1")
		// Plain requests: the test client's HEAD after each GET would take a third profile.
		statuses := make([]int, 2)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodGet, h.url+"/debug/pprof/profile?seconds=1", nil)
				req.Header.Set("X-API-Key", keyAdmin)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err != nil {
					t.Error(err)
					return
				}
				statuses[i] = resp.StatusCode
				if err := apitest.Validate(req, nil, &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}); err != nil {
					t.Errorf("does not match openapi.yaml: %v", err)
				}
			})
		}
		wg.Wait()
		if statuses[0]+statuses[1] != http.StatusOK+http.StatusConflict {
			t.Errorf("statuses %v, want one 200 and one 409", statuses)
		}
	})
}
