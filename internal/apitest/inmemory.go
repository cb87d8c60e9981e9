package apitest

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
)

// NewInMemory serves h over in-memory connections (net.Pipe pairs) and returns a
// client of it. A test in a testing/synctest bubble needs this instead of a socket:
// a goroutine waiting on a socket is not durably blocked, so with one the bubble's
// clock would never move and synctest.Wait would not return; a pipe blocks on
// channels, so the server, its handlers and the client all run on the bubble's fake
// clock. The server and the client's connections close when the test ends.
func NewInMemory(t testing.TB, h http.Handler) *Client {
	t.Helper()
	ln := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	tr := &http.Transport{DialContext: ln.dial}
	c := New(t, "http://in-memory")
	c.http = &http.Client{Transport: tr}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = srv.Close()
		<-served
	})
	return c
}

// pipeListener is a net.Listener whose connections are the server ends of net.Pipe
// pairs made by dial.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
