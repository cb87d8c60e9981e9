package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
)

const appOrigin = "https://app.example.com"

func withCORS(origins ...string) func(*setup) {
	return func(s *setup) { s.opts.CORSAllowedOrigins = origins }
}

// corsRequest is a request from a page of origin ("" for none); preflight makes it
// the OPTIONS a browser sends first, without a key as browsers do.
func corsRequest(c *apitest.Client, method, path, key, origin string, preflight bool, body any) *http.Request {
	if preflight {
		req := c.NewRequest(http.MethodOptions, path, "", nil)
		req.Header.Set("Access-Control-Request-Method", method)
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-api-key")
		req.Header.Set("Origin", origin)
		return req
	}
	req := c.NewRequest(method, path, key, body)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return req
}

func hasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func TestCORS(t *testing.T) {
	listed := newHarness(t, withCORS(appOrigin, "http://localhost:3000"))
	anyOrigin := newHarness(t, withCORS("*"))
	off := newHarness(t)
	const predictBody = `{"model":"echo","data":1}`
	tests := []struct {
		name         string
		h            *harness
		method, path string
		key, origin  string
		preflight    bool
		status       int
		allowOrigin  string // "" for none
		vary         bool
	}{
		{name: "preflight of a listed origin needs no key", h: listed, method: "POST", path: "/predict", origin: appOrigin, preflight: true, status: 204, allowOrigin: appOrigin, vary: true},
		{name: "preflight of a poll", h: listed, method: "GET", path: "/predict/async/0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", origin: "http://localhost:3000", preflight: true, status: 204, allowOrigin: "http://localhost:3000", vary: true},
		{name: "origins compare without case", h: listed, method: "POST", path: "/predict", origin: "https://App.Example.com", preflight: true, status: 204, allowOrigin: "https://App.Example.com", vary: true},
		{name: "preflight of an unlisted origin", h: listed, method: "POST", path: "/predict", origin: "https://evil.example.net", preflight: true, status: 405, vary: true},
		{name: "prediction from a listed origin", h: listed, method: "POST", path: "/predict", key: keyPredict, origin: appOrigin, status: 200, allowOrigin: appOrigin, vary: true},
		{name: "listing from a listed origin", h: listed, method: "GET", path: "/models", key: keyRead, origin: appOrigin, status: 200, allowOrigin: appOrigin, vary: true},
		{name: "a problem is readable by the page", h: listed, method: "GET", path: "/models", origin: appOrigin, status: 401, allowOrigin: appOrigin, vary: true},
		{name: "a listed origin's HEAD", h: listed, method: "HEAD", path: "/health", origin: appOrigin, status: 200, allowOrigin: appOrigin, vary: true},
		{name: "an unlisted origin", h: listed, method: "GET", path: "/models", key: keyRead, origin: "https://evil.example.net", status: 200, vary: true},
		{name: "no origin", h: listed, method: "GET", path: "/health", status: 200, vary: true},
		{name: "a look-alike origin", h: listed, method: "GET", path: "/health", origin: appOrigin + ".evil.example.net", status: 200, vary: true},
		{name: "* allows every origin", h: anyOrigin, method: "POST", path: "/predict", key: keyPredict, origin: "https://anywhere.example.org", status: 200, allowOrigin: "*", vary: true},
		{name: "* preflight", h: anyOrigin, method: "DELETE", path: "/predict/async/0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", origin: "https://anywhere.example.org", preflight: true, status: 204, allowOrigin: "*", vary: true},
		{name: "unset: no CORS at all", h: off, method: "POST", path: "/predict", key: keyPredict, origin: appOrigin, status: 200},
		{name: "unset: no preflight", h: off, method: "POST", path: "/predict", origin: appOrigin, preflight: true, status: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.method == http.MethodPost && !tt.preflight {
				body = predictBody
			}
			resp := tt.h.c.Do(corsRequest(tt.h.c, tt.method, tt.path, tt.key, tt.origin, tt.preflight, body))
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.allowOrigin {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tt.allowOrigin)
			}
			if got := hasToken(resp.Header, "Vary", "Origin"); got != tt.vary {
				t.Errorf("Vary: Origin %v, want %v (Vary %q)", got, tt.vary, resp.Header.Values("Vary"))
			}
			if tt.allowOrigin == "" {
				for k := range resp.Header {
					if strings.HasPrefix(k, "Access-Control-") {
						t.Errorf("a CORS header without an allowed origin: %s", k)
					}
				}
				return
			}
			if tt.preflight {
				for _, want := range []struct{ header, token string }{
					{"Access-Control-Allow-Methods", tt.method},
					{"Access-Control-Allow-Headers", "X-API-Key"},
					{"Access-Control-Allow-Headers", "Content-Type"},
				} {
					if !hasToken(resp.Header, want.header, want.token) {
						t.Errorf("%s %q lacks %s", want.header, resp.Header.Get(want.header), want.token)
					}
				}
				if resp.Header.Get("Access-Control-Max-Age") == "" {
					t.Error("no Access-Control-Max-Age: every call would pay for a preflight")
				}
				return
			}
			for _, h := range []string{"X-Request-ID", "Retry-After"} {
				if !hasToken(resp.Header, "Access-Control-Expose-Headers", h) {
					t.Errorf("Access-Control-Expose-Headers %q lacks %s", resp.Header.Get("Access-Control-Expose-Headers"), h)
				}
			}
		})
	}
}
