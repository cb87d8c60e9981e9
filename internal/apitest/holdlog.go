package apitest

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"
)

// HoldAccessLine is a slog.Handler that holds the access log line (msg "request") of
// the first request of one operation until Let is called, so that a test can see what
// a client has while the server is still writing it. It drops every other record.
type HoldAccessLine struct {
	operation    string
	reached      chan struct{}
	release      chan struct{}
	first, freed sync.Once
}

// NewHoldAccessLine holds the line of the first request of operation (an operationId).
func NewHoldAccessLine(operation string) *HoldAccessLine {
	return &HoldAccessLine{operation: operation, reached: make(chan struct{}), release: make(chan struct{})}
}

// Send sends req with c from another goroutine, waits until the server holds the
// request's access log line, and returns where the response arrives: nil after a
// transport error, which fails the test.
func (h *HoldAccessLine) Send(t testing.TB, c *Client, req *http.Request) <-chan *Response {
	t.Helper()
	answered := make(chan *Response, 1)
	go func() {
		resp, err := c.TryDo(req)
		if err != nil {
			t.Error(err)
		}
		answered <- resp
	}()
	select {
	case <-h.reached:
	case <-time.After(10 * time.Second):
		t.Fatal("no access log line")
	}
	return answered
}

// Let lets the held line be written; it may be called more than once.
func (h *HoldAccessLine) Let() { h.freed.Do(func() { close(h.release) }) }

func (h *HoldAccessLine) Enabled(context.Context, slog.Level) bool { return true }

func (h *HoldAccessLine) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "request" {
		return nil
	}
	op := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "operation" {
			op = a.Value.String()
		}
		return op == ""
	})
	if op != h.operation {
		return nil
	}
	held := false
	h.first.Do(func() { held = true; close(h.reached) })
	if held {
		<-h.release
	}
	return nil
}

func (h *HoldAccessLine) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *HoldAccessLine) WithGroup(string) slog.Handler      { return h }
