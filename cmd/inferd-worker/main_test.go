package main_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/redistest"
)

// TestWorkerProbes: WORKER_LISTEN_ADDR overrides WORKER_PORT, :0 takes a free port
// the log names, and the probes answer HEAD as GET. The worker's probes are not part
// of the API contract, so plain HTTP checks them.
func TestWorkerProbes(t *testing.T) {
	redis := redistest.Start(t)
	bin := proctest.Build(t, "inferd-worker")
	// Started once ready, not just live: /ready turning 200 between the GET and the
	// HEAD of a pair would fail the comparison on a slow machine.
	p := proctest.StartListening(t, bin, "/ready",
		"WORKER_PORT=1", "WORKER_LISTEN_ADDR=127.0.0.1:0", "MODELS_DIR="+t.TempDir(), "QUEUE_URL="+redis.URL())
	if !regexp.MustCompile(`msg="worker listening" addr=127\.0\.0\.1:\d+`).MatchString(p.Logs()) {
		t.Errorf("the log does not name the bound address:\n%s", p.Logs())
	}
	do := func(method, path string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, p.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	for _, path := range []string{"/health", "/ready", "/metrics"} {
		t.Run("HEAD "+path, func(t *testing.T) {
			get, _ := do(http.MethodGet, path)
			head, body := do(http.MethodHead, path)
			if head.StatusCode != get.StatusCode || len(body) != 0 || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
				t.Errorf("HEAD %d %q with %d bytes; GET %d %q", head.StatusCode, head.Header.Get("Content-Type"), len(body), get.StatusCode, get.Header.Get("Content-Type"))
			}
		})
	}
	t.Run("405 says Allow", func(t *testing.T) {
		resp, _ := do(http.MethodPost, "/health")
		if allow := resp.Header.Get("Allow"); resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(allow, "GET") || !strings.Contains(allow, "HEAD") {
			t.Errorf("status %d, Allow %q", resp.StatusCode, allow)
		}
	})
}

// TestWorkerNeedsNoKeys: in production, the worker starts without API_KEYS (it serves
// no API, only its open probes and /metrics), while the server with the same settings
// refuses to start with the development keys.
func TestWorkerNeedsNoKeys(t *testing.T) {
	redis := redistest.Start(t)
	env := []string{"INFERD_ENV=production", "MODELS_DIR=" + t.TempDir(), "QUEUE_URL=" + redis.URL()}
	port := proctest.FreePort(t)
	p := proctest.Start(t, proctest.Build(t, "inferd-worker"), port, "/ready", append(env, "WORKER_LISTEN_ADDR=127.0.0.1:"+strconv.Itoa(port))...)
	for _, path := range []string{"/health", "/ready", "/metrics"} {
		resp, err := http.Get(p.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}

	code, _, stderr := proctest.Exec(t, proctest.Build(t, "inferd"), nil, append(env, "LISTEN_ADDR=127.0.0.1:0")...)
	if code != 2 || !strings.Contains(stderr, "refusing to start with the built-in development keys") {
		t.Errorf("inferd in production without keys: exit %d, stderr %q", code, stderr)
	}
}

// TestWorkerConnectionCaps: the worker's probe port takes the server's connection
// caps (see docs/design.md#connections-are-capped): past MAX_CONNECTIONS_PER_ADDRESS a connection is closed
// at once and counted, and the probes still answer from another address.
func TestWorkerConnectionCaps(t *testing.T) {
	const perAddress = 3
	redis := redistest.Start(t)
	port := proctest.FreePort(t)
	p := proctest.Start(t, proctest.Build(t, "inferd-worker"), port, "/health",
		"WORKER_PORT="+strconv.Itoa(port), "MODELS_DIR="+t.TempDir(), "QUEUE_URL="+redis.URL(),
		"MAX_CONNECTIONS_PER_ADDRESS="+strconv.Itoa(perAddress))
	addr := "127.0.0.1:" + strconv.Itoa(port)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.7")}, Timeout: 5 * time.Second}
	closed := 0
	for range perAddress + 2 {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(time.Second))
		_, err = c.Read(make([]byte, 1))
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			closed++
		}
	}
	if closed != 2 {
		t.Errorf("%d of %d connections from one address closed at once, want 2", closed, perAddress+2)
	}
	resp, err := http.Get(p.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want := `inferd_connections_refused_total{reason="max_connections_per_address"} 2`; !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %s", want)
	}
}
