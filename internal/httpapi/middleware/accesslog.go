package middleware

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
)

// readinessProbes answer 503 by design while the models load and once the server
// drains. An orchestrator asks every few seconds, so each such answer at error would
// be a false alarm in the log, flushed at once.
var readinessProbes = map[string]bool{"ready": true, "oipServerReady": true}

// AccessLog writes the access log. The zero value writes to slog.Default() without
// trace ids.
type AccessLog struct {
	Log *slog.Logger
	// TraceIDs adds the request's trace and span ids to its line (tracing on).
	TraceIDs bool
}

// Line is what one request's line of the access log says.
type Line struct {
	ID        string // the request id
	Operation string // the contract's operationId, or "unmatched"
	Status    int
	End       time.Time
	Duration  time.Duration
	// KeyID is the key's id; "": no key, and no key_id on the line.
	KeyID string
	// Model and Version are what routing chose: a registered model's, never the
	// client's text; "": none chosen.
	Model, Version string
}

// Write writes the request's line of the access log: at info, at debug for a probe
// (probeOperations), or at error for a 5xx other than a readiness probe's. The
// record is made here rather than by Logger.LogAttrs, which walks the stack for its
// caller's position on every call: a cost per request for a source position that is
// the same on every line.
func (a AccessLog) Write(r *http.Request, l Line) {
	level := slog.LevelInfo
	switch {
	case l.Status >= 500 && !readinessProbes[l.Operation]:
		level = slog.LevelError
	case probeOperations[l.Operation]:
		level = slog.LevelDebug
	}
	ctx := r.Context()
	log := a.Log
	if log == nil {
		log = slog.Default()
	}
	h := log.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	rec := slog.NewRecord(l.End, level, "request", 0)
	// One AddAttrs: past the five a record holds inline, each call grows its slice.
	var attrs [9]slog.Attr
	attrs[0], attrs[1], attrs[2] = slog.String("request_id", l.ID), slog.String("method", r.Method), slog.String("operation", l.Operation)
	attrs[3], attrs[4], attrs[5] = slog.String("route", chi.RouteContext(ctx).RoutePattern()), slog.Int("status", l.Status), slog.Duration("duration", l.Duration)
	n := 6
	if l.KeyID != "" {
		attrs[n] = slog.String("key_id", l.KeyID)
		n++
	}
	if l.Model != "" {
		attrs[n], attrs[n+1] = slog.String("model", l.Model), slog.String("version", l.Version)
		n += 2
	}
	rec.AddAttrs(attrs[:n]...)
	if a.TraceIDs {
		addTraceIDs(ctx, &rec)
	}
	_ = h.Handle(ctx, rec)
}
