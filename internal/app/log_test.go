package app_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/app"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/daemon"
	"github.com/inferd/inferd/internal/testkit"
)

// TestProcessLogger: the process's own logger (daemon.NewLogger) in JSON, at debug:
// the access line of a request gives its duration as duration_ms, a number of
// milliseconds, and a probe's line is at DEBUG; at info the probe has none.
func TestProcessLogger(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		t.Run(level.String(), func(t *testing.T) {
			out := &apitest.Log{}
			s := startAppWith(t, map[string]string{"MODELS_DIR": t.TempDir()}, true,
				app.Options{Logger: daemon.NewLogger(out, config.Config{LogFormat: "json", LogLevel: level})})
			probe := s.c.Get("/health", "")
			resp := s.c.Post("/predict", "dev-key", `{"model":"echo","data":[1,2]}`)
			if probe.Status != http.StatusOK || resp.Status != http.StatusOK {
				t.Fatalf("/health %d, /predict %d %s", probe.Status, resp.Status, resp.Body)
			}
			var line map[string]json.RawMessage
			testkit.Eventually(t, 5*time.Second, func() bool { return out.AccessLine(resp.Header.Get("X-Request-Id"), &line) },
				"an access line for /predict:\n%s", out)
			var ms float64
			if err := json.Unmarshal(line["duration_ms"], &ms); err != nil || ms <= 0 || ms > 60_000 {
				t.Errorf("duration_ms %s (%v), want a number of milliseconds: %s", line["duration_ms"], err, out)
			}
			if _, ok := line["duration"]; ok {
				t.Errorf("the line still has a duration without unit: %s", out)
			}
			var probeLine struct{ Level string }
			logged := out.AccessLine(probe.Header.Get("X-Request-Id"), &probeLine)
			switch {
			case level == slog.LevelDebug && (!logged || probeLine.Level != "DEBUG"):
				t.Errorf("/health logged %v at %q, want at DEBUG:\n%s", logged, probeLine.Level, out)
			case level == slog.LevelInfo && logged:
				t.Errorf("/health logged at %s with LOG_LEVEL=info:\n%s", probeLine.Level, out)
			}
		})
	}
}
