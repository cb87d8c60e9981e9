package app

import (
	"io"
	"log/slog"

	"github.com/inferd/inferd/internal/config"
)

// NewLogger returns the process logger: JSON in production (LOG_FORMAT), text
// otherwise, at LOG_LEVEL.
func NewLogger(w io.Writer, cfg config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
