package httpapi_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
)

// TestWriteTimeout: a client that stops reading its answers is cut off at the
// server's WriteTimeout, which net/http arms for each request.
func TestWriteTimeout(t *testing.T) {
	const writeTimeout = 300 * time.Millisecond
	closed := make(chan string, 16) // the client's addresses of the connections the server closed
	h := newHarness(t, func(s *setup) {
		s.writeTimeout = writeTimeout
		s.connState = func(c net.Conn, st http.ConnState) {
			if st == http.StateClosed {
				select {
				case closed <- c.RemoteAddr().String():
				default:
				}
			}
		}
	})
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
	// The server gives up on the connection at the deadline: what was sent before
	// ends in an end of file or a reset, not in this read's own deadline.
	for timeout := time.After(30 * time.Second); ; {
		select {
		case addr := <-closed:
			if addr != conn.LocalAddr().String() {
				continue
			}
		case <-timeout:
			t.Fatal("the server had not closed the connection 30 s after its client stopped reading")
		}
		break
	}
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
}
