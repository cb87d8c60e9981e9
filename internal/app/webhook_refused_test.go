package app_test

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
	"github.com/inferd/inferd/internal/testport"
)

// TestWebhookRefusedAddress: in process, with WEBHOOK_ALLOWED_HOSTS=* and every
// network listed: a callback_url naming an address of this machine's own interfaces
// (not loopback) is 400 callback_not_allowed at submission; so are the numeric forms
// of loopback and impossible ports; and one whose name resolves to loopback
// (localhost) is accepted, but its delivery fails at the first attempt, unretried,
// the job's record saying why, and nothing reaches the receiver listening there.
func TestWebhookRefusedAddress(t *testing.T) {
	s := startApp(t, map[string]string{
		"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0",
		"WEBHOOK_ALLOWED_HOSTS": "*,0.0.0.0/0,::/0", "WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	}, true)
	rv := startHookRecv(t, false)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimSuffix(rv.url, "/hook"), "http://"))
	own := testport.OwnAddress(t)
	ownRecv := listenOn(t, own)

	refused := []struct{ url, detail string }{
		{"http://" + ownRecv + "/hook", "this machine"},
		{"http://127.1:" + port + "/hook", "this machine"},
		{"http://2130706433:" + port + "/hook", "this machine"},
		{"http://0x7f000001:" + port + "/hook", "this machine"},
		{"http://0177.0.0.1:" + port + "/hook", "this machine"},
		{"http://[::ffff:127.0.0.1]:" + port + "/hook", "this machine"},
		{"http://[::127.0.0.1]:" + port + "/hook", "this machine"},
		{"http://[::ffff:0:127.0.0.1]:" + port + "/hook", "this machine"},
		{"http://hooks.example.com:99999/hook", "port"},
		{"http://hooks.example.com:0/hook", "port"},
		{"http://1.2.3.4.5/hook", "IPv4"},
	}
	for _, tt := range refused {
		t.Run(tt.url, func(t *testing.T) {
			resp := s.c.Post("/predict/async", "dev-key", `{"model":"echo","version":"v1","data":1,"callback_url":"`+tt.url+`"}`)
			if resp.Status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", resp.Status, resp.Body)
			}
			if p := resp.Problem(t); p.Code != "callback_not_allowed" || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("problem %s %q, want callback_not_allowed naming %q", p.Code, p.Detail, tt.detail)
			}
		})
	}

	t.Run("a name resolving to loopback", func(t *testing.T) {
		resp := s.c.Post("/predict/async", "dev-key", `{"model":"echo","version":"v1","data":1,"callback_url":"http://localhost:`+port+`/hook"}`)
		var sub struct {
			JobID string `json:"job_id"`
		}
		resp.JSON(t, &sub)
		if resp.Status != http.StatusOK {
			t.Fatalf("status %d: %s", resp.Status, resp.Body)
		}
		var rec struct {
			Callback struct {
				State     string `json:"state"`
				Attempts  int    `json:"attempts"`
				LastError string `json:"last_error"`
			} `json:"callback"`
		}
		testkit.Eventually(t, time.Minute, func() bool {
			s.c.Get("/jobs/"+sub.JobID, "dev-key").JSON(t, &rec)
			return rec.Callback.State != "" && rec.Callback.State != "pending"
		}, "the callback settled")
		cb := rec.Callback
		if cb.State != "failed" || cb.Attempts != 1 || !strings.Contains(cb.LastError, "not retried") || !strings.Contains(cb.LastError, "this machine") {
			t.Errorf("callback %+v, want failed at its one attempt, saying localhost's address is this machine's", cb)
		}
		if _, ok := rv.arrived(sub.JobID); ok {
			t.Error("the receiver on loopback was reached")
		}
	})
}

// listenOn starts a receiver on ip that fails the test if it is ever reached, and
// returns its host:port.
func listenOn(t *testing.T, ip netip.Addr) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatalf("listening on this machine's address %s: %v", ip, err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		t.Error("the receiver on this machine's own address was reached")
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}
