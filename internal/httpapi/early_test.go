package httpapi_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
)

// TestAnswerBeforeAccessLogWhenQuiet: a server with few open connections sends a
// prediction's answer as soon as it is written, before the request's access log line;
// one with more sends it when the handler returns, after the line (quietConns).
func TestAnswerBeforeAccessLogWhenQuiet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		idle  int // connections open besides the client's
		early bool
	}{
		{"the client's connection alone", 0, true},
		{"a scraper's connection besides", 1, true},
		{"two more connections", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hold := apitest.NewHoldAccessLine("predict")
			h := newHarness(t, func(s *setup) { s.opts.Logger = slog.New(hold) })
			defer hold.Let()
			apitest.IdleConns(t, h.url, tc.idle) // before the client's connection
			answered := hold.Send(t, h.c, h.c.NewRequest(http.MethodPost, "/predict", keyPredict, `{"model":"echo","data":1}`))
			// Now the handler is held writing its access log line.
			var resp *apitest.Response
			if tc.early {
				select {
				case resp = <-answered:
				case <-time.After(10 * time.Second):
					t.Fatal("no answer while the access log line is being written")
				}
			} else {
				select {
				case <-answered:
					t.Fatal("answered before the access log line was written, with connections open besides")
				case <-time.After(200 * time.Millisecond):
				}
				hold.Let()
				resp = <-answered
			}
			if resp == nil || resp.Status != http.StatusOK {
				t.Fatalf("answer %+v, want 200", resp)
			}
		})
	}
}
