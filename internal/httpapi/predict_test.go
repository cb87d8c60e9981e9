package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/httpapi"
	"github.com/inferd/inferd/internal/testkit"
)

// tricky are values that break when JSON passes through float64 or a lossy decoder.
var tricky = []string{
	`12345678901234567890`,
	`0.1`,
	`-0.0`,
	`"héllo wörld ✓ 日本語 \ud83d\ude00"`,
	`{"nested":{"deep":[1,[2,[3,{"k":null}]]],"big":123456789012345678901234567890}}`,
	`null`,
	`[]`,
	`{}`,
	`true`,
	`"<script>&amp;</script>"`,
}

func TestEchoRoundTrip(t *testing.T) {
	h := newHarness(t)
	for _, version := range []string{"v1", "v2"} {
		for _, v := range tricky {
			t.Run(version+"/"+v, func(t *testing.T) {
				body := fmt.Sprintf(`{"model":"echo","version":%q,"data":%s}`, version, v)
				resp := h.c.Post("/predict", keyPredict, body)
				if resp.Status != http.StatusOK {
					t.Fatalf("status %d: %s", resp.Status, resp.Body)
				}
				var out struct {
					Model, Version string
					Result         json.RawMessage
				}
				resp.JSON(t, &out)
				if !testkit.SameJSON(out.Result, []byte(v)) {
					t.Errorf("result %s, want %s", out.Result, v)
				}
				if out.Version != version || resp.Header.Get("X-Model-Version") != version {
					t.Errorf("version %q, header %q, want %q", out.Version, resp.Header.Get("X-Model-Version"), version)
				}
				// Sent at once with its length (writeJSON flushes), never chunked.
				if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(resp.Body)) {
					t.Errorf("Content-Length %q for a body of %d bytes", cl, len(resp.Body))
				}
			})
		}
	}
	t.Run("batch of tricky values", func(t *testing.T) {
		body := fmt.Sprintf(`{"model":"echo","version":"v1","items":[%s]}`, strings.Join(tricky, ","))
		var out struct{ Results []json.RawMessage }
		resp := h.c.Post("/predict/batch", keyPredict, body)
		resp.JSON(t, &out)
		if len(out.Results) != len(tricky) {
			t.Fatalf("%d results for %d items", len(out.Results), len(tricky))
		}
		for i := range tricky {
			if !testkit.SameJSON(out.Results[i], []byte(tricky[i])) {
				t.Errorf("item %d: %s, want %s", i, out.Results[i], tricky[i])
			}
		}
	})
}

func TestBatchKeepsOrder(t *testing.T) {
	h := newHarness(t)
	items := make([]any, 500)
	for i := range items {
		items[i] = map[string]any{"i": i, "s": strings.Repeat("x", i%7)}
	}
	resp := h.c.Post("/predict/batch", keyPredict, map[string]any{"model": "echo", "items": items})
	if resp.Status != http.StatusOK {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	var out struct {
		Results []struct {
			I int `json:"i"`
		}
	}
	resp.JSON(t, &out)
	if len(out.Results) != len(items) {
		t.Fatalf("%d results, want %d", len(out.Results), len(items))
	}
	for i, r := range out.Results {
		if r.I != i {
			t.Fatalf("result %d holds item %d", i, r.I)
		}
	}
}

func TestVersionlessRequestIsRouted(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/predict", "/predict/batch"} {
		t.Run(path, func(t *testing.T) {
			body := map[string]any{"model": "echo", "data": 1}
			if path == "/predict/batch" {
				body = map[string]any{"model": "echo", "items": []any{1}}
			}
			resp := h.c.Post(path, keyPredict, body)
			var out struct{ Version string }
			resp.JSON(t, &out)
			// echo has no rule, so the default, latest, picks v2.
			if out.Version != "v2" || resp.Header.Get("X-Model-Version") != "v2" {
				t.Errorf("version %q, header %q, want v2", out.Version, resp.Header.Get("X-Model-Version"))
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name, path, contentType, body string
		status                        int
		code, detail                  string
	}{
		{"malformed JSON", "/predict", "application/json", `{"model":"echo","data":`, 400, "invalid_request", "body"},
		{"no body", "/predict", "application/json", ``, 400, "invalid_request", "body: the request has no body; send the JSON object"},
		{"no batch body", "/predict/batch", "application/json", ``, 400, "invalid_request", "body: the request has no body"},
		{"not an object", "/predict", "application/json", `[1,2]`, 400, "invalid_request", "body"},
		{"missing data", "/predict", "application/json", `{"model":"echo"}`, 400, "invalid_request", `"data" is missing`},
		{"missing model", "/predict", "application/json", `{"data":1}`, 400, "invalid_request", `"model" is missing`},
		{"model of the wrong type", "/predict", "application/json", `{"model":7,"data":1}`, 400, "invalid_request", "model"},
		{"version of the wrong type", "/predict", "application/json", `{"model":"echo","version":2,"data":1}`, 400, "invalid_request", "version"},
		{"unknown field", "/predict", "application/json", `{"model":"echo","data":1,"verison":"v1"}`, 400, "invalid_request", "verison"},
		{"unknown model", "/predict", "application/json", `{"model":"nope","data":1}`, 400, "model_not_found", `"nope"`},
		{"unknown version", "/predict", "application/json", `{"model":"echo","version":"v9","data":1}`, 400, "version_not_found", `"v9"`},
		{"empty items", "/predict/batch", "application/json", `{"model":"echo","items":[]}`, 400, "invalid_request", "items"},
		{"items not an array", "/predict/batch", "application/json", `{"model":"echo","items":{}}`, 400, "invalid_request", "items"},
		{"missing items", "/predict/batch", "application/json", `{"model":"echo"}`, 400, "invalid_request", `"items" is missing`},
		{"async unknown model", "/predict/async", "application/json", `{"model":"nope","data":1}`, 400, "model_not_found", `"nope"`},
		{"async batch unknown version", "/predict/async/batch", "application/json", `{"model":"echo","version":"v3","items":[1]}`, 400, "version_not_found", `"v3"`},
		{"async empty items", "/predict/async/batch", "application/json", `{"model":"echo","items":[]}`, 400, "invalid_request", "items"},
		{"text body", "/predict", "text/plain", `{"model":"echo","data":1}`, 415, "unsupported_media_type", "application/json"},
		{"form body", "/predict/batch", "application/x-www-form-urlencoded", `model=echo`, 415, "unsupported_media_type", "application/json"},
		{"no content type", "/predict/async", "", `{"model":"echo","data":1}`, 415, "unsupported_media_type", "application/json"},
		// Data after the JSON value was ignored until the contract fuzzer sent some.
		{"a second object after the body", "/predict", "application/json", `{"model":"echo","data":1}{"model":"nope"}`, 400, "invalid_request", "nothing after it"},
		{"text after the body", "/predict/batch", "application/json", `{"model":"echo","items":[1]} x`, 400, "invalid_request", "nothing after it"},
		{"a closing bracket after the body", "/predict/async", "application/json", `{"model":"echo","data":1}]`, 400, "invalid_request", "nothing after it"},
		// A number beyond a double came back in an echo that no contract reader could read.
		{"a number beyond a double", "/predict", "application/json", `{"model":"echo","data":[1e400]}`, 400, "invalid_request", "1e400 is beyond the range of a double"},
		{"a negative number beyond a double in items", "/predict/batch", "application/json", `{"model":"echo","items":[[1,-123456789012345678901234567890e300]]}`, 400, "invalid_request", "beyond the range"},
		{"the body twice", "/predict/async/batch", "application/json", `{"model":"echo","items":[1]}{"model":"echo","items":[1]}`, 400, "invalid_request", "nothing after it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := h.c.NewRequest(http.MethodPost, tt.path, keyPredict, tt.body)
			if tt.contentType == "" {
				req.Header.Del("Content-Type")
			} else {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp := h.c.Do(req)
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			p := resp.Problem(t)
			if p.Code != tt.code || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("problem %q %q, want code %q with %q in the detail", p.Code, p.Detail, tt.code, tt.detail)
			}
			if p.RequestID == "" || p.RequestID != resp.Header.Get("X-Request-ID") {
				t.Errorf("request_id %q, header %q", p.RequestID, resp.Header.Get("X-Request-ID"))
			}
		})
	}
}

func TestPayloadLimits(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.opts.MaxRequestBytes = 1024; s.opts.MaxBatchItems = 10 })
	big := fmt.Sprintf(`{"model":"echo","data":"%s"}`, strings.Repeat("x", 2048))
	t.Run("oversized body", func(t *testing.T) {
		resp := h.c.Post("/predict", keyPredict, big)
		if resp.Status != http.StatusRequestEntityTooLarge || resp.Problem(t).Code != "payload_too_large" {
			t.Fatalf("status %d: %s", resp.Status, resp.Body)
		}
	})
	for _, path := range []string{"/predict", "/predict/batch", "/predict/async", "/predict/async/batch"} {
		t.Run("oversized chunked body to "+path, func(t *testing.T) {
			req := h.c.NewRequest(http.MethodPost, path, keyPredict, nil)
			req.Header.Set("Content-Type", "application/json")
			req.Body = io.NopCloser(strings.NewReader(big)) // no length: sent chunked
			req.ContentLength = -1
			req.GetBody = nil
			resp := h.c.Do(req)
			if resp.Status != http.StatusRequestEntityTooLarge || resp.Problem(t).Code != "payload_too_large" {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
		})
	}
	for _, path := range []string{"/predict/batch", "/predict/async/batch"} {
		t.Run("too many items to "+path, func(t *testing.T) {
			resp := h.c.Post(path, keyPredict, `{"model":"echo","items":[1,2,3,4,5,6,7,8,9,10,11]}`)
			if resp.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			if p := resp.Problem(t); p.Code != "payload_too_large" || !strings.Contains(p.Detail, "MAX_BATCH_ITEMS") {
				t.Errorf("problem %+v", p)
			}
		})
	}
	// Operations without a request body take none: the contract declares the 413.
	for _, tt := range []struct{ method, path, key string }{
		{http.MethodGet, "/health", ""},
		{http.MethodGet, "/ready", ""},
		{http.MethodGet, "/metrics", ""},
		{http.MethodGet, "/models", keyAdmin},
		{http.MethodGet, "/jobs/0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", keyAdmin},
		{http.MethodDelete, "/predict/async/0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", keyAdmin},
		// The documents, outside the generated server, declare the 413 too.
		{http.MethodGet, "/openapi.yaml", ""},
		{http.MethodGet, "/openapi.json", ""},
		{http.MethodGet, "/docs", ""},
	} {
		t.Run("body on "+tt.method+" "+tt.path, func(t *testing.T) {
			req := h.c.NewRequest(tt.method, tt.path, tt.key, `{"x":1}`)
			resp := h.c.Do(req)
			if resp.Status != http.StatusRequestEntityTooLarge || !strings.Contains(resp.Problem(t).Detail, "takes no request body") {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
		})
	}
	t.Run("at the item limit", func(t *testing.T) {
		if resp := h.c.Post("/predict/batch", keyPredict, `{"model":"echo","items":[1,2,3,4,5,6,7,8,9,10]}`); resp.Status != http.StatusOK {
			t.Fatalf("status %d: %s", resp.Status, resp.Body)
		}
	})
}

func TestRateLimit(t *testing.T) {
	h := newHarness(t, func(s *setup) { s.opts.RateLimitRPS = 0.5; s.opts.RateLimitBurst = 3 })
	body := map[string]any{"model": "echo", "data": 1}
	for i := range 3 {
		if resp := h.c.Post("/predict", keyPredict, body); resp.Status != http.StatusOK {
			t.Fatalf("request %d within the burst: status %d", i, resp.Status)
		}
	}
	resp := h.c.Post("/predict/async", keyPredict, body)
	if resp.Status != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429: %s", resp.Status, resp.Body)
	}
	if p := resp.Problem(t); p.Code != "rate_limited" {
		t.Errorf("code %q", p.Code)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "2" {
		t.Errorf("Retry-After %q, want 2 (one token every 2 s)", ra)
	}
	t.Run("buckets are per key", func(t *testing.T) {
		if resp := h.c.Post("/predict", keyAdmin, body); resp.Status != http.StatusOK {
			t.Errorf("another key: status %d", resp.Status)
		}
	})
	t.Run("other scopes are not limited", func(t *testing.T) {
		if resp := h.c.Get("/models", keyAdmin); resp.Status != http.StatusOK {
			t.Errorf("status %d", resp.Status)
		}
	})
}

func TestUnknownPathsAndMethods(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/nope", 404, "not_found"},
		{"DELETE", "/predict", 405, "method_not_allowed"},
		{"GET", "/predict/async/not-a-job", 404, "job_not_found"},
		{"DELETE", "/predict/async/not-a-job", 404, "job_not_found"},
		{"GET", "/jobs/0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b", 404, "job_not_found"},
		{"GET", "/jobs/0B6F8A52-3C4D-4F6E-9A1B-2C3D4E5F6A7B", 404, "job_not_found"},
		{"GET", "/health", 200, ""},
		{"POST", "/admin/models/nope/v1/reload", 404, "model_not_found"},
		{"POST", "/admin/models/echo/v7/reload", 404, "version_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			resp := h.c.Do(h.c.NewRequest(tt.method, tt.path, keyAdmin, nil))
			if resp.Status != tt.status || tt.code != "" && resp.Problem(t).Code != tt.code {
				t.Fatalf("status %d, want %d %s: %s", resp.Status, tt.status, tt.code, resp.Body)
			}
		})
	}
}

func TestRequestID(t *testing.T) {
	h := newHarness(t)
	tests := []struct{ sent, want string }{
		{"abc-123", "abc-123"},
		{"bad id with spaces", ""},
		{strings.Repeat("a", 200), ""},
	}
	for _, tt := range tests {
		t.Run(tt.sent, func(t *testing.T) {
			req := h.c.NewRequest(http.MethodGet, "/health", "", nil)
			req.Header.Set("X-Request-ID", tt.sent)
			got := h.c.Do(req).Header.Get("X-Request-ID")
			if tt.want != "" && got != tt.want || tt.want == "" && (got == tt.sent || got == "") {
				t.Errorf("X-Request-ID %q for %q", got, tt.sent)
			}
		})
	}
}

var _ = httpapi.Options{}

// Path parameters are validated as the handlers receive them, unescaped: the contract
// fuzzer found a name of 100 escaped characters refused by maxLength (128), which the
// validator had measured on the 600 characters sent.
func TestEscapedPathParameters(t *testing.T) {
	h := newHarness(t)
	escapeAll := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, "%%%02X", s[i])
		}
		return b.String()
	}
	tests := []struct {
		name, method, path string
		status             int
		code               string
	}{
		{"every byte escaped", http.MethodGet, "/models/" + escapeAll("echo") + "/" + escapeAll("v1"), 200, ""},
		{"reload, every byte escaped", http.MethodPost, "/admin/models/" + escapeAll("echo") + "/v1/reload", 200, ""},
		{"128 escaped characters", http.MethodGet, "/models/" + strings.Repeat("%C3%A9", 128) + "/v1", 404, "model_not_found"},
		{"an escaped slash", http.MethodGet, "/models/a%2Fb/v1", 404, "model_not_found"},
		{"129 characters", http.MethodGet, "/models/" + strings.Repeat("%C3%A9", 129) + "/v1", 400, "invalid_request"},
		{"a job id of escaped characters", http.MethodGet, "/jobs/" + strings.Repeat("%20", 128), 404, "job_not_found"},
		{"a job id too long", http.MethodGet, "/jobs/" + strings.Repeat("%20", 129), 400, "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.c.Do(h.c.NewRequest(tt.method, tt.path, keyAdmin, nil))
			if resp.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
			}
			if tt.code != "" && resp.Problem(t).Code != tt.code {
				t.Errorf("code %q, want %q", resp.Problem(t).Code, tt.code)
			}
		})
	}
}

// Bodies at the edges of what the body checks refuse: whitespace after the JSON value is
// part of JSON text, and numbers a double holds, or that only look huge, pass.
func TestBodyEdgesAccepted(t *testing.T) {
	h := newHarness(t)
	for _, body := range []string{
		`{"model":"echo","data":1}` + "\n",
		`{"model":"echo","data":1}` + "\r\n",
		`{"model":"echo","data":1}` + " \t ",
		`{"model":"echo","data":[1.7976931348623157e308,-1e308,1e-400,12345678901234567890]}`,
		`{"model":"echo","data":"1e400"}`,
		`{"model":"echo","data":{"1e400":"\"1e400"}}`,
	} {
		t.Run(body, func(t *testing.T) {
			if resp := h.c.Post("/predict", keyPredict, body); resp.Status != http.StatusOK {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
		})
	}
}
