package daemon

import (
	"io"
	"log/slog"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/logline"
)

// NewLogger returns the process logger: JSON in production (LOG_FORMAT), text
// otherwise, at LOG_LEVEL. Its lines are slog's, written by logline, which writes
// the access log's line per request for about half of slog's CPU. w must be safe for
// concurrent use.
func NewLogger(w io.Writer, cfg config.Config) *slog.Logger {
	return slog.New(logline.New(w, cfg.LogFormat == "json", &slog.HandlerOptions{Level: cfg.LogLevel}))
}
