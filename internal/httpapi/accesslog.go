package httpapi

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

// logRequest writes the request's line of the access log: at info, at debug for a
// probe (probeOperations), or at error for a 5xx other than a readiness probe's. The
// record is made here rather than by Logger.LogAttrs, which walks the stack for its
// caller's position on every call: a cost per request for a source position that is
// the same on every line.
func (s *Server) logRequest(r *http.Request, info *reqInfo, op string, status int, end time.Time, d time.Duration) {
	level := slog.LevelInfo
	switch {
	case status >= 500 && !readinessProbes[op]:
		level = slog.LevelError
	case probeOperations[op]:
		level = slog.LevelDebug
	}
	ctx := r.Context()
	h := s.log.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	rec := slog.NewRecord(end, level, "request", 0)
	// One AddAttrs: past the five a record holds inline, each call grows its slice.
	var attrs [9]slog.Attr
	attrs[0], attrs[1], attrs[2] = slog.String("request_id", info.id), slog.String("method", r.Method), slog.String("operation", op)
	attrs[3], attrs[4], attrs[5] = slog.String("route", chi.RouteContext(ctx).RoutePattern()), slog.Int("status", status), slog.Duration("duration", d)
	n := 6
	if info.principal.ID != "" { // no key: no key_id
		attrs[n] = slog.String("key_id", info.principal.ID)
		n++
	}
	if info.route.Model != "" { // routing chose a version: a registered model's, never the client's text
		attrs[n], attrs[n+1] = slog.String("model", info.route.Model), slog.String("version", info.route.Version)
		n += 2
	}
	rec.AddAttrs(attrs[:n]...)
	if s.opts.Tracer != nil {
		addTraceIDs(ctx, &rec)
	}
	_ = h.Handle(ctx, rec)
}
