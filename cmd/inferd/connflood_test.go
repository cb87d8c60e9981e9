package main_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestConnectionFlood (see docs/design.md#connections-are-capped) runs the built server with a file
// descriptor limit of 256 and default caps (MAX_CONNECTIONS 128, half of them per
// address), and floods it with idle connections from one address, then from several.
// Without caps the flood exhausts the descriptors: accept fails with "too many open
// files" and net/http stops accepting for up to a second at a time, so /health from
// anyone else goes unanswered. With them the connections past a cap are closed at
// once, counted by reason, and /health answers from another address, or, once the
// whole cap is taken, as soon as the flood goes.
func TestConnectionFlood(t *testing.T) {
	const limit, max, perAddress = 256, 128, 64
	bin := proctest.Build(t, "inferd")
	// The limit must hold from the start, as the cap is derived from it then.
	wrapper := filepath.Join(t.TempDir(), "inferd-limited")
	script := "#!/bin/sh\nulimit -n " + strconv.Itoa(limit) + " && exec " + bin + "\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	port := proctest.FreePort(t)
	p := proctest.Start(t, wrapper, port, "/ready", "PORT="+strconv.Itoa(port), "MODELS_DIR="+t.TempDir(), "SHUTDOWN_TIMEOUT=5s")
	want := "max_connections=" + strconv.Itoa(max) + " max_connections_per_address=" + strconv.Itoa(perAddress)
	testkit.Eventually(t, 10*time.Second, func() bool { return strings.Contains(p.Logs(), want) }, "the log to say %s", want)
	addr := "127.0.0.1:" + strconv.Itoa(port)

	get := func(from, path string) (*http.Response, error) {
		cl := &http.Client{Transport: apitest.Transport(t, fromTransport(from))}
		resp, err := cl.Get(p.URL + path)
		if err == nil {
			defer resp.Body.Close()
		}
		return resp, err
	}
	health := func(from string) (int, error) {
		resp, err := get(from, "/health")
		if err != nil {
			return 0, err
		}
		return resp.StatusCode, nil
	}
	metric := func(t *testing.T, sample string) float64 {
		t.Helper()
		resp, err := get("127.0.0.9", "/metrics")
		if err != nil {
			t.Fatalf("GET /metrics: %v", err)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), sample+" "); ok {
				f, _ := strconv.ParseFloat(v, 64)
				return f
			}
		}
		t.Fatalf("no sample %s in /metrics", sample)
		return 0
	}

	t.Run("from one address", func(t *testing.T) {
		flood := dialMany(t, "127.0.0.1", addr, limit+50)
		start := time.Now()
		status, err := health("127.0.0.2")
		if err != nil || status != http.StatusOK {
			t.Fatalf("GET /health from another address during the flood: %v; logs:\n%s", err, p.Logs())
		}
		t.Logf("GET /health during a flood of %d idle connections from one address: %s", len(flood.conns), time.Since(start))
		if closed := flood.closedAtOnce(); closed != len(flood.conns)-perAddress {
			t.Errorf("%d of %d flooding connections closed at once, want %d", closed, len(flood.conns), len(flood.conns)-perAddress)
		}
		if got := metric(t, `inferd_connections_refused_total{reason="max_connections_per_address"}`); got != float64(len(flood.conns)-perAddress) {
			t.Errorf("refused per address: %v, want %d", got, len(flood.conns)-perAddress)
		}
		if got := metric(t, `inferd_connections_open`); got < perAddress+1 {
			t.Errorf("connections open: %v, want at least %d", got, perAddress+1)
		}
		flood.close()
		testkit.Eventually(t, 10*time.Second, func() bool {
			return metric(t, "inferd_connections_open") == 1 // the scrape's own
		}, "the flood's connections to be closed")
	})
	t.Run("from several addresses", func(t *testing.T) {
		var floods []*dialled
		for _, from := range []string{"127.0.0.3", "127.0.0.4", "127.0.0.5"} {
			floods = append(floods, dialMany(t, from, addr, perAddress))
		}
		closed := 0
		for _, f := range floods {
			closed += f.closedAtOnce()
		}
		if closed != 3*perAddress-max {
			t.Errorf("%d of %d connections closed at once, want %d", closed, 3*perAddress, 3*perAddress-max)
		}
		// The whole cap is taken: a newcomer is closed at once, not left waiting.
		if _, err := health("127.0.0.6"); err == nil {
			t.Error("GET /health answered with every connection taken")
		}
		for _, f := range floods {
			f.close()
		}
		testkit.Eventually(t, 10*time.Second, func() bool {
			status, err := health("127.0.0.6")
			return err == nil && status == http.StatusOK
		}, "the flood's connections to be closed")
		if got := metric(t, `inferd_connections_refused_total{reason="max_connections"}`); got < float64(3*perAddress-max+1) {
			t.Errorf("refused in all: %v, want at least %d", got, 3*perAddress-max+1)
		}
	})
	if strings.Contains(p.Logs(), "too many open files") {
		t.Errorf("the server ran out of file descriptors:\n%s", p.Logs())
	}
	p.Signal(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Errorf("exit code %d (%v)", code, err)
	}
}

// fromTransport dials from the loopback address from, which Linux has for all of
// 127/8, so that one machine plays several clients.
func fromTransport(from string) *http.Transport {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	return &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true, ResponseHeaderTimeout: 5 * time.Second}
}

// dialled are idle connections a test holds open.
type dialled struct{ conns []net.Conn }

// dialMany opens n connections from the address from and sends nothing on them.
func dialMany(t *testing.T, from, addr string, n int) *dialled {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	f := &dialled{}
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial from %s: %v", from, err)
		}
		f.conns = append(f.conns, c)
	}
	t.Cleanup(f.close)
	return f
}

// closedAtOnce counts the connections the server closed without a byte: a read
// ends within a second with EOF or a reset instead of waiting.
func (f *dialled) closedAtOnce() int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for _, c := range f.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(time.Second))
			_, err := c.Read(make([]byte, 1))
			var ne net.Error
			if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return n
}

func (f *dialled) close() {
	for _, c := range f.conns {
		c.Close()
	}
}
