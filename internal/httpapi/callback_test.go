package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/webhook"
)

// withCallbacks lets submissions name callbacks to the hosts of allow.
func withCallbacks(t *testing.T, allow string) func(*setup) {
	a, err := webhook.ParseAllowList(allow)
	if err != nil {
		t.Fatal(err)
	}
	return func(s *setup) { s.opts.Callbacks = a }
}

// TestCallbackURLRefused: a callback_url that WEBHOOK_ALLOWED_HOSTS does not allow, or
// that could not be dialed, is refused at submission, 400 callback_not_allowed with a
// detail that says what to do, on both submit operations and through the one-pass
// decoder's fast and general paths.
func TestCallbackURLRefused(t *testing.T) {
	tests := []struct {
		name, allow, url, detail string
	}{
		{"loopback not listed", "hooks.example.com", "http://127.0.0.1:8080/hook", "loopback"},
		{"loopback v6 not listed", "*", "http://[::1]:8080/hook", "loopback"},
		{"private under any", "*", "http://10.0.0.7/hook", "private"},
		{"link-local metadata", "*", "http://169.254.169.254/latest/meta-data", "link-local"},
		{"host not listed", "hooks.example.com", "https://evil.example.net/hook", "WEBHOOK_ALLOWED_HOSTS"},
		{"scheme", "*", "ftp://hooks.example.com/hook", "http://"},
		{"credentials", "*", "https://me:secret@hooks.example.com/hook", "password"},
		{"no callbacks taken", "", "https://hooks.example.com/hook", "WEBHOOK_ALLOWED_HOSTS"},
		{"documentation range", "*", "http://198.51.100.7/hook", "documentation"},
		{"benchmarking range", "*", "http://198.18.0.1/hook", "benchmarking"},
		{"shared range", "*", "http://100.64.0.1/hook", "shared"},
		{"mapped loopback", "*", "http://[::ffff:127.0.0.1]/hook", "loopback"},
		{"compatible loopback", "*", "http://[::127.0.0.1]/hook", "loopback"},
		{"translated loopback", "*", "http://[::ffff:0:127.0.0.1]/hook", "loopback"},
		{"short loopback", "*", "http://127.1/hook", "loopback"},
		{"loopback as a number", "*", "http://2130706433/hook", "loopback"},
		{"loopback in hex", "*", "http://0x7f000001/hook", "loopback"},
		{"loopback in octal", "*", "http://0177.0.0.1/hook", "loopback"},
		{"port too large", "*", "http://hooks.example.com:99999/hook", "port 99999"},
		{"port 0", "*", "http://hooks.example.com:0/hook", "port 0"},
		{"not an address", "*", "http://300.1.1.1/hook", "IPv4"},
		// An escaped slash takes the decoder's general path.
		{"general path", "hooks.example.com", `http:\/\/127.0.0.1\/hook`, "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withCallbacks(t, tt.allow))
			for _, path := range []string{"/predict/async", "/predict/async/batch"} {
				member := `"data":{"x":1}`
				if strings.HasSuffix(path, "batch") {
					member = `"items":[1,2]`
				}
				body := `{"model":"echo",` + member + `,"callback_url":"` + tt.url + `"}`
				resp := h.c.Post(path, keyPredict, body)
				if resp.Status != http.StatusBadRequest {
					t.Fatalf("%s: status %d, want 400: %s", path, resp.Status, resp.Body)
				}
				p := resp.Problem(t)
				if p.Code != "callback_not_allowed" || !strings.Contains(p.Detail, tt.detail) {
					t.Errorf("%s: problem %s %q, want callback_not_allowed naming %q", path, p.Code, p.Detail, tt.detail)
				}
			}
		})
	}
}

// TestCallbackOnRecord: an allowed callback_url is on the job's record, pending until
// a dispatcher posts it (this harness runs none).
func TestCallbackOnRecord(t *testing.T) {
	h := newHarness(t, withCallbacks(t, "hooks.example.com,127.0.0.1"))
	for _, url := range []string{"https://hooks.example.com/inferd?job=1", "http://127.0.0.1:9/hook"} {
		t.Run(url, func(t *testing.T) {
			id := submit(t, h.c, "/predict/async", map[string]any{"model": "echo", "data": 1, "callback_url": url})
			waitFinal(t, h.c, id)
			var rec struct {
				Callback struct {
					URL      string `json:"url"`
					State    string `json:"state"`
					Attempts int    `json:"attempts"`
				} `json:"callback"`
			}
			h.c.Get("/predict/async/"+id, keyRead).JSON(t, &rec)
			if rec.Callback.URL != url || rec.Callback.State != "pending" || rec.Callback.Attempts != 0 {
				t.Errorf("callback %+v, want %s pending with no attempt", rec.Callback, url)
			}
		})
	}
}
