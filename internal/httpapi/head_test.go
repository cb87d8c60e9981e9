package httpapi_test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/apitest"
)

// getRoutes lists every GET path of the contract with its parameters filled in; the
// CPU profile and the trace record for a second.
func getRoutes(t *testing.T, jobID string) []string {
	t.Helper()
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	fill := strings.NewReplacer("{job_id}", jobID, "{name}", "echo", "{version}", "v1", "{model_name}", "echo", "{model_version}", "v1",
		"/debug/pprof/profile", "/debug/pprof/profile?seconds=1", "/debug/pprof/trace", "/debug/pprof/trace?seconds=1")
	var paths []string
	for path, item := range spec.Paths.Map() {
		if item.Get != nil {
			paths = append(paths, fill.Replace(path))
		}
	}
	sort.Strings(paths)
	if len(paths) < 10 {
		t.Fatalf("only %d GET routes in the contract", len(paths))
	}
	return paths
}

// sameButBody checks that head is get's status and headers without a body. A
// profile is taken anew for each request, so its length differs from one to the next.
func sameButBody(t *testing.T, path string, get, head *apitest.Response) {
	t.Helper()
	headers := []string{"Content-Type", "Content-Length", "Retry-After", "Allow", "WWW-Authenticate"}
	// Profiles, and the memory report's figures, are measured anew for each request:
	// their lengths may differ by a digit.
	if strings.HasPrefix(path, "/debug/pprof/") || path == "/admin/models/memory" {
		headers = slices.DeleteFunc(headers, func(h string) bool { return h == "Content-Length" })
	}
	if head.Status != get.Status {
		t.Errorf("HEAD status %d, GET %d", head.Status, get.Status)
	}
	if len(head.Body) != 0 {
		t.Errorf("HEAD has a %d-byte body", len(head.Body))
	}
	for _, h := range headers {
		if g, hd := get.Header.Get(h), head.Header.Get(h); g != hd {
			t.Errorf("%s: HEAD %q, GET %q", h, hd, g)
		}
	}
	if head.Header.Get("X-Request-ID") == "" {
		t.Error("HEAD without X-Request-ID")
	}
}

// TestHeadOnEveryGetRoute sends every GET of the contract as HEAD, with a key that
// may call it, with none and with one that lacks the scope: each HEAD gets its GET's
// status and headers, and no body.
func TestHeadOnEveryGetRoute(t *testing.T) {
	h := newHarness(t)
	id := submit(t, h.c, "/predict/async", `{"model":"echo","data":1}`)
	waitFinal(t, h.c, id)
	for _, path := range getRoutes(t, id) {
		for _, key := range []string{keyAdmin, "", keyPredict} {
			t.Run(path+"/key="+key, func(t *testing.T) {
				if key == keyAdmin {
					skipTimedProfile(t, path)
				}
				get := h.c.Do(h.c.NewRequest(http.MethodGet, path, key, nil))
				head := h.c.Do(h.c.NewRequest(http.MethodHead, path, key, nil))
				sameButBody(t, path, get, head)
				if key == keyAdmin && path != "/admin/queues" && head.Status != http.StatusOK {
					t.Errorf("HEAD %s: status %d", path, head.Status)
				}
			})
		}
	}
}

func TestHeadOutsideGetRoutes(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name, path, key string
		status          int
		allow           string
	}{
		{"a POST operation", "/predict", keyPredict, http.StatusMethodNotAllowed, "POST"},
		{"no such path", "/nope", keyAdmin, http.StatusNotFound, ""},
		{"a malformed job id", "/predict/async/not-a-job", keyAdmin, http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			get := h.c.Do(h.c.NewRequest(http.MethodGet, tt.path, tt.key, nil))
			head := h.c.Do(h.c.NewRequest(http.MethodHead, tt.path, tt.key, nil))
			sameButBody(t, tt.path, get, head)
			if head.Status != tt.status || head.Header.Get("Allow") != tt.allow {
				t.Errorf("HEAD %s: status %d, Allow %q; want %d, %q", tt.path, head.Status, head.Header.Get("Allow"), tt.status, tt.allow)
			}
		})
	}
}

// TestMethodNotAllowedSaysAllow: a 405 names the methods the path has (RFC 9110
// 15.5.6), so a client can correct itself.
func TestMethodNotAllowedSaysAllow(t *testing.T) {
	h := newHarness(t)
	tests := []struct{ method, path, allow string }{
		{http.MethodDelete, "/predict", "POST"},
		{http.MethodGet, "/predict/batch", "POST"},
		{http.MethodPut, "/predict/async/0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", "GET, HEAD, DELETE"},
		{http.MethodPost, "/health", "GET, HEAD"},
		{http.MethodPatch, "/models", "GET, HEAD"},
		{http.MethodDelete, "/admin/models/echo/v1/reload", "POST"},
		{http.MethodOptions, "/models", "GET, HEAD"}, // no CORS_ALLOWED_ORIGINS: OPTIONS is no method of the API
		{http.MethodPost, "/openapi.yaml", "GET, HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			resp := h.c.Do(h.c.NewRequest(tt.method, tt.path, keyAdmin, nil))
			if resp.Status != http.StatusMethodNotAllowed {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			if got := resp.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if p := resp.Problem(t); p.Code != "method_not_allowed" || !strings.Contains(p.Detail, tt.allow) {
				t.Errorf("problem %+v", p)
			}
		})
	}
}
