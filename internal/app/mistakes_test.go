package app_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testkit"
)

// rawExchange sends raw bytes on a new connection (closing its write side after them
// when halfClose is set, as a client that gave up on its body does) and reads one
// answer. The answer is validated against openapi.yaml as the answer to the request's
// operation; one net/http gives before routing (canned) is validated as the answer to
// a path outside the contract, which must be a problem (under /v2, the protocol's error).
func rawExchange(t *testing.T, addr, raw string, halfClose, canned bool) *apitest.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	if halfClose {
		_ = conn.(*net.TCPConn).CloseWrite()
	}
	route, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil || canned {
		path := "/unparseable-request"
		if _, target, _ := strings.Cut(raw, " "); strings.HasPrefix(target, "/v2/") || strings.HasPrefix(target, "/v2 ") {
			path = "/v2" + path
		}
		route, _ = http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	} else {
		route.URL.Scheme, route.URL.Host = "http", addr
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), route)
	if err != nil {
		t.Fatalf("reading the answer to %.80q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body of the answer to %.80q: %v", raw, err)
	}
	out := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if err := apitest.Validate(route, nil, out); err != nil {
		t.Errorf("the answer to %.80q does not match openapi.yaml: %v\n%s", raw, err, body)
	}
	return out
}

// TestClientMistakes sends, over a real socket to the server app.Run serves, each
// client mistake (see docs/design.md#every-client-mistake-is-a-problem) and checks the answer's
// status and problem code.
func TestClientMistakes(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0"}, true)
	c := s.c
	addr := strings.TrimPrefix(s.c.NewRequest(http.MethodGet, "/", "", nil).URL.Host, "http://")

	const post = "POST /predict HTTP/1.1\r\nHost: x\r\nX-API-Key: dev-key\r\nContent-Type: application/json\r\n"
	const echo = `{"model":"echo","version":"v1","data":1}`
	raw := []struct {
		name, req string
		halfClose bool
		canned    bool // answered by net/http before routing
		status    int
		code      string
		detail    string // a part of the detail, when it matters
	}{
		{"body shorter than its Content-Length", post + "Content-Length: 100\r\n\r\n" + echo[:20], true, false, 400, "invalid_request", "ended before"},
		{"malformed chunk size", post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n" + echo + "\r\n0\r\n\r\n", false, false, 400, "invalid_request", "chunk"},
		{"chunked body cut off", post + "Transfer-Encoding: chunked\r\n\r\n40\r\n" + echo[:20], true, false, 400, "invalid_request", "ended before"},
		{"gzip body", post + "Content-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}", false, false, 415, "unsupported_media_type", "Content-Encoding: gzip"},
		{"X-API-Key twice, valid first", "GET /models HTTP/1.1\r\nHost: x\r\nX-API-Key: dev-key\r\nX-API-Key: bogus\r\n\r\n", false, false, 401, "unauthorized", "once"},
		{"X-API-Key twice, valid second", "GET /models HTTP/1.1\r\nHost: x\r\nX-API-Key: bogus\r\nX-API-Key: dev-key\r\n\r\n", false, false, 401, "unauthorized", "once"},
		{"X-API-Key twice, both valid", "GET /models HTTP/1.1\r\nHost: x\r\nX-API-Key: dev-key\r\nX-API-Key: dev-key\r\n\r\n", false, false, 401, "unauthorized", "once"},
		{"bad percent-escape in the path", "GET /models/%zz/v1 HTTP/1.1\r\nHost: x\r\nX-API-Key: dev-key\r\n\r\n", false, true, 400, "invalid_request", ""},
		{"headers over the limit", "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 80<<10) + "\r\n\r\n", false, true, 431, "header_too_large", ""},
		{"unknown Transfer-Encoding", "POST /predict HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", false, true, 501, "not_implemented", "Transfer-Encoding"},
		{"PUT on a GET route", "PUT /models HTTP/1.1\r\nHost: x\r\nX-API-Key: dev-key\r\nContent-Length: 0\r\n\r\n", false, false, 405, "method_not_allowed", ""},
	}
	for _, tc := range raw {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawExchange(t, addr, tc.req, tc.halfClose, tc.canned)
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tc.status, resp.Body)
			}
			p := resp.Problem(t)
			if p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) || p.RequestID == "" {
				t.Errorf("problem %+v, want code %s and a detail with %q", p, tc.code, tc.detail)
			}
		})
	}
	t.Run("405 lists the allowed methods", func(t *testing.T) {
		resp := rawExchange(t, addr, "DELETE /health HTTP/1.1\r\nHost: x\r\n\r\n", false, false)
		if resp.Status != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%d Allow %q, want 405 with Allow: GET, HEAD", resp.Status, resp.Header.Get("Allow"))
		}
	})
	t.Run("HEAD answers every GET route", func(t *testing.T) {
		for _, path := range []string{"/models", "/models/iris/v1", "/health", "/ready", "/openapi.yaml"} {
			resp := rawExchange(t, addr, "HEAD "+path+" HTTP/1.1\r\nHost: x\r\nX-API-Key: dev-key\r\n\r\n", false, false)
			if resp.Status != http.StatusOK || len(resp.Body) != 0 || resp.Header.Get("Content-Type") == "" {
				t.Errorf("HEAD %s: %d, %d body bytes, Content-Type %q", path, resp.Status, len(resp.Body), resp.Header.Get("Content-Type"))
			}
		}
	})

	t.Run("a bad percent-escape in the path of every operation", func(t *testing.T) {
		// Each path parameter (or, in a path without one, its last segment) becomes a
		// malformed escape: net/http refuses the request line before any route, for
		// every shape of path, /v2 and the admin and debug routes included.
		spec, err := inferd.Contract()
		if err != nil {
			t.Fatal(err)
		}
		param := regexp.MustCompile(`\{[^}]+\}`)
		for _, path := range spec.Paths.InMatchingOrder() {
			bad := param.ReplaceAllString(path, "%zz")
			if bad == path {
				bad = path + "%G0"
			}
			for method := range spec.Paths.Value(path).Operations() {
				for _, m := range []string{method, http.MethodHead} {
					req := m + " " + bad + " HTTP/1.1\r\nHost: x\r\nX-API-Key: admin-key\r\nContent-Length: 0\r\n\r\n"
					resp := rawExchange(t, addr, req, false, true)
					oip := strings.HasPrefix(bad, "/v2/") // "/v2%G0" is no path under /v2
					want := "application/problem+json"
					if oip {
						want = "application/json"
					}
					if resp.Status != http.StatusBadRequest || resp.Header.Get("Content-Type") != want {
						t.Errorf("%s %s: %d %s %q", m, bad, resp.Status, resp.Header.Get("Content-Type"), resp.Body)
						continue
					}
					if m == http.MethodHead {
						continue // no body to read the problem from
					}
					code, detail := "", ""
					if oip {
						e := resp.OIPError(t)
						code, detail = e.Code, e.Error
					} else {
						p := resp.Problem(t)
						code, detail = p.Code, p.Detail
					}
					if code != "invalid_request" || !strings.Contains(detail, "percent-escape") {
						t.Errorf("%s %s: code %q, detail %q", m, bad, code, detail)
					}
				}
			}
		}
	})

	bodies := []struct {
		name, path, body string
		status           int
		code             string
		detail           string
	}{
		{"invalid UTF-8 in a string", "/predict", "{\"model\":\"echo\",\"data\":\"\xff\xfe\"}", 400, "invalid_request", "UTF-8"},
		{"invalid UTF-8 in a batch", "/predict/batch", "{\"model\":\"echo\",\"items\":[\"a\",\"\xc3\"]}", 400, "invalid_request", "UTF-8"},
		{"invalid UTF-8 in a job", "/predict/async", "{\"model\":\"echo\",\"data\":\"\xed\xa0\x80\"}", 400, "invalid_request", "UTF-8"},
		{"text after the document", "/predict", echo + "xyz", 400, "invalid_request", "nothing after it"},
		{"two documents", "/predict", echo + echo, 400, "invalid_request", "nothing after it"},
		{"float32 overflow", "/predict", `{"model":"iris","version":"v1","data":[1e39,3.5,1.4,0.2]}`, 400, "invalid_input", "data[0]"},
		{"float32 overflow in a batch", "/predict/batch", `{"model":"iris","version":"v1","items":[[5.1,3.5,1.4,0.2],[5.1,-1e39,1.4,0.2]]}`, 400, "invalid_input", "items[1]"},
		{"model output overflows", "/predict", `{"model":"iris","version":"v1","data":[3e38,3e38,-3e38,3e38]}`, 400, "invalid_input", `data: model output "logits" is +Inf`},
		{"model output overflows in a batch", "/predict/batch", `{"model":"iris","version":"v1","items":[[5.1,3.5,1.4,0.2],[3e38,3e38,-3e38,3e38]]}`, 400, "invalid_input", `items[1]: model output "logits" is +Inf`},
		{"1e400 as data", "/predict", `{"model":"echo","data":1e400}`, 400, "invalid_request", "1e400"},
		{"1e400 in an array", "/predict", `{"model":"echo","data":[1,1e400]}`, 400, "invalid_request", "1e400"},
		{"1e400 in items", "/predict/batch", `{"model":"echo","items":[[1e400]]}`, 400, "invalid_request", "1e400"},
	}
	for _, tc := range bodies {
		t.Run(tc.name, func(t *testing.T) {
			resp := c.Post(tc.path, "dev-key", tc.body)
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tc.status, resp.Body)
			}
			if p := resp.Problem(t); p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
				t.Errorf("problem %+v, want code %s and a detail with %q", p, tc.code, tc.detail)
			}
		})
	}

	t.Run("job ids in upper case and urn:uuid: form", func(t *testing.T) {
		var sub struct {
			JobID string `json:"job_id"`
		}
		c.Post("/predict/async", "dev-key", `{"model":"echo","data":"x"}`).JSON(t, &sub)
		for _, id := range []string{strings.ToUpper(sub.JobID), "urn:uuid:" + sub.JobID, "URN:UUID:" + strings.ToUpper(sub.JobID)} {
			for _, path := range []string{"/jobs/", "/predict/async/"} {
				resp := c.Get(path+id, "dev-key")
				var rec struct {
					JobID string `json:"job_id"`
				}
				if resp.Status != http.StatusOK {
					t.Fatalf("GET %s%s: %d %s", path, id, resp.Status, resp.Body)
				}
				if resp.JSON(t, &rec); rec.JobID != sub.JobID {
					t.Errorf("GET %s%s names job %s, want %s", path, id, rec.JobID, sub.JobID)
				}
			}
		}
	})

	t.Run("answers are not HTML-escaped", func(t *testing.T) {
		var sub struct {
			JobID string `json:"job_id"`
		}
		c.Post("/predict/async/batch", "dev-key", `{"model":"echo","items":["<a&b>",{"<":">"}]}`).JSON(t, &sub)
		testkit.Eventually(t, 10*time.Second, func() bool {
			return bytes.Contains(c.Get("/jobs/"+sub.JobID, "dev-key").Body, []byte(`"succeeded"`))
		}, "job %s succeeded", sub.JobID)
		for _, resp := range []*apitest.Response{
			c.Get("/jobs/"+sub.JobID, "dev-key"),
			c.Get("/predict/async/"+sub.JobID, "dev-key"),
			c.Post("/predict", "dev-key", `{"model":"echo","data":"<a&b>"}`),
			c.Post("/predict", "dev-key", `{"model":"<a&b>","data":1}`),
		} {
			if !bytes.Contains(resp.Body, []byte("<a&b>")) || bytes.Contains(resp.Body, []byte(`\u00`)) {
				t.Errorf("%d %s: want <a&b> as sent, no \\u00 escapes", resp.Status, resp.Body)
			}
		}
	})

	t.Run("a deleted version leaves the listing with its reload's 404", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dir, "iris", "v2")); err != nil {
			t.Fatal(err)
		}
		if resp := c.Do(c.NewRequest(http.MethodPost, "/admin/models/iris/v2/reload", "admin-key", nil)); resp.Status != http.StatusNotFound || resp.Problem(t).Code != "version_not_found" {
			t.Fatalf("reload of the deleted version: %d %s, want 404 version_not_found", resp.Status, resp.Body)
		}
		if resp := c.Get("/models", "dev-key"); bytes.Contains(resp.Body, []byte(`"name":"iris","version":"v2"`)) {
			t.Errorf("/models still lists iris v2: %s", resp.Body)
		}
		if resp := c.Get("/models/iris/v2", "dev-key"); resp.Status != http.StatusNotFound {
			t.Errorf("GET /models/iris/v2: %d, want 404", resp.Status)
		}
		// The rule named v2 (90/10): requests without a version go to what is left.
		for range 20 {
			if resp := c.Post("/predict", "dev-key", `{"model":"iris","data":[5.1,3.5,1.4,0.2]}`); resp.Status != http.StatusOK {
				t.Fatalf("iris without a version: %d %s", resp.Status, resp.Body)
			}
		}
	})
}
