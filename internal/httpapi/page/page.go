package page

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/inferd/inferd/internal/problem"
)

// Pages mounts the pages. The zero value answers refusals as plain text, checks no
// request body and mounts no admin page: Pprof and Queues need Admin.
type Pages struct {
	// Problem writes a refusal as the rest of the API answers its own; nil:
	// http.Error's plain text.
	Problem func(w http.ResponseWriter, r *http.Request, status int, code, detail string)
	// Error answers a handler's error (a failed pause of a queue, say) as the API
	// answers one; nil: a 500 internal_error through Problem.
	Error func(w http.ResponseWriter, r *http.Request, err error)
	// NotFound answers a path no page has; nil: http.NotFound.
	NotFound http.HandlerFunc
	// NoBody refuses a request body on the routes that take none; nil: no check.
	NoBody func(http.Handler) http.Handler
	// Admin passes only requests made with an admin key; the admin pages (profiles,
	// queue dashboard) are not mounted without it.
	Admin func(http.Handler) http.Handler
	// Log takes the queue dashboard's own failures, with RequestID's id for the
	// request; nil: slog.Default(), and no id.
	Log       *slog.Logger
	RequestID func(context.Context) string
}

func (p Pages) problem(w http.ResponseWriter, r *http.Request, status int, code, detail string) {
	if p.Problem == nil {
		http.Error(w, detail, status)
		return
	}
	p.Problem(w, r, status, code, detail)
}

func (p Pages) error(w http.ResponseWriter, r *http.Request, err error) {
	if p.Error == nil {
		p.problem(w, r, http.StatusInternalServerError, problem.CodeInternalError, problem.InternalDetail)
		return
	}
	p.Error(w, r, err)
}

func (p Pages) notFound(w http.ResponseWriter, r *http.Request) {
	if p.NotFound == nil {
		http.NotFound(w, r)
		return
	}
	p.NotFound(w, r)
}

func (p Pages) noBody(next http.Handler) http.Handler {
	if p.NoBody == nil {
		return next
	}
	return p.NoBody(next)
}

func (p Pages) log() *slog.Logger {
	if p.Log == nil {
		return slog.Default()
	}
	return p.Log
}

func (p Pages) requestID(ctx context.Context) string {
	if p.RequestID == nil {
		return ""
	}
	return p.RequestID(ctx)
}
