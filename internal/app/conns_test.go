package app_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/app"
)

// TestAnswerAfterAccessLineWhileConnectionsAreOpen: the server counts its open
// connections (httpapi.Server.ConnState), so with three open, more than a quiet
// server's, a prediction's answer leaves when its handler returns, after its access
// log line, and not as soon as it is written.
func TestAnswerAfterAccessLineWhileConnectionsAreOpen(t *testing.T) {
	hold := apitest.NewHoldAccessLine("predict")
	defer hold.Let()
	s := startAppWith(t, map[string]string{"MODELS_DIR": t.TempDir()}, true, app.Options{Logger: slog.New(hold)})
	apitest.IdleConns(t, s.url, 2)
	// The client's request then goes on a connection dialled after those two.
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	answered := hold.Send(t, s.c, s.c.NewRequest(http.MethodPost, "/predict", "dev-key", `{"model":"echo","data":1}`))
	select {
	case <-answered:
		t.Fatal("answered before its access log line was written, with three connections open")
	case <-time.After(200 * time.Millisecond):
	}
	hold.Let()
	if resp := <-answered; resp == nil || resp.Status != http.StatusOK {
		t.Fatalf("answer %+v, want 200", resp)
	}
}
