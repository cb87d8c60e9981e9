package httpapi_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/httpapi"
)

// armCounter counts the write deadlines armed on the connections under
// CoalescedWriteDeadlines: the timers net/http's would have cost otherwise.
type armCounter struct {
	net.Listener
	arms *atomic.Int64
}

func (l armCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return armCountingConn{Conn: c, arms: l.arms}, nil
}

type armCountingConn struct {
	net.Conn
	arms *atomic.Int64
}

func (c armCountingConn) SetWriteDeadline(t time.Time) error {
	if !t.IsZero() {
		c.arms.Add(1)
	}
	return c.Conn.SetWriteDeadline(t)
}

func coalesced(arms *atomic.Int64, writeTimeout, slack time.Duration) func(*setup) {
	return func(s *setup) {
		s.writeTimeout = writeTimeout
		s.listener = func(l net.Listener) net.Listener {
			return httpapi.CoalescedWriteDeadlines(armCounter{Listener: l, arms: arms}, slack)
		}
	}
}

func TestCoalescedWriteDeadlines(t *testing.T) {
	t.Run("one deadline serves a connection's requests within the slack", func(t *testing.T) {
		var arms atomic.Int64
		h := newHarness(t, coalesced(&arms, time.Minute, 10*time.Second))
		for range 20 {
			if got := h.c.Post("/predict", keyPredict, map[string]any{"model": "echo", "data": map[string]any{"n": 1}}); got.Status != http.StatusOK {
				t.Fatalf("status %d: %s", got.Status, got.Body)
			}
		}
		// net/http armed one per request: 20.
		if n := arms.Load(); n != 1 {
			t.Errorf("%d write deadlines armed for 20 requests on one connection, want 1", n)
		}
	})

	t.Run("a connection idle past its deadline gets a new one", func(t *testing.T) {
		var arms atomic.Int64
		h := newHarness(t, coalesced(&arms, 100*time.Millisecond, 10*time.Millisecond))
		for i := range 2 {
			if i > 0 {
				time.Sleep(300 * time.Millisecond) // the first deadline is long past
			}
			if got := h.c.Get("/health", ""); got.Status != http.StatusOK {
				t.Fatalf("request %d: status %d: %s", i+1, got.Status, got.Body)
			}
		}
		if n := arms.Load(); n != 2 {
			t.Errorf("%d write deadlines armed, want 2: one per request more than the slack apart", n)
		}
	})

	t.Run("a client that stops reading is cut off", func(t *testing.T) {
		var arms atomic.Int64
		const writeTimeout, slack = 300 * time.Millisecond, 30 * time.Millisecond
		h := newHarness(t, coalesced(&arms, writeTimeout, slack))
		conn, err := net.Dial("tcp", strings.TrimPrefix(h.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// Far more answers than the socket buffers hold (27 MB: the contract is 90 kB),
		// asked for at once: once the client stops reading, the server's write blocks
		// until its deadline.
		const sent = 300
		req := "GET /openapi.yaml HTTP/1.1\r\nHost: inferd\r\n\r\n"
		if _, err := conn.Write([]byte(strings.Repeat(req, sent))); err != nil {
			t.Fatal(err)
		}
		// The first answer is read (and checked), the rest left unread.
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequest(http.MethodGet, h.url+"/openapi.yaml", nil)
		if err := apitest.Validate(r, nil, &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}); err != nil {
			t.Error(err)
		}
		time.Sleep(writeTimeout + slack + 500*time.Millisecond)
		// The server gave up on the connection at the deadline: what was sent before
		// ends in an end of file or a reset, not in this read's own deadline.
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := io.Copy(io.Discard, br)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal("the connection was still open 30 s after its client stopped reading")
		}
		if err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("reading the answers: %v", err)
		}
		if n >= int64((sent-1)*len(body)) {
			t.Errorf("all %d answers arrived (%d bytes after the first), want the connection cut off at its write deadline", sent, n)
		}
	})
}
