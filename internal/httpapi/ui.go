package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/problem"
)

// queueUIPath is where the queue dashboard is mounted.
const queueUIPath = "/admin/queues"

// requireScope guards pages outside the contract's validator. A browser cannot add
// X-API-Key to a page's own requests, so the key is also taken from HTTP Basic
// authentication's password, and a 401 asks the browser for it.
func (s *Server) requireScope(scope auth.Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p auth.Principal
		key, err := apiKey(r)
		if err == nil && key == "" {
			_, key, _ = r.BasicAuth()
		}
		if err == nil {
			p, err = s.checkKey(r, key, scope)
		}
		switch {
		case errors.Is(err, auth.ErrForbidden):
			writeProblem(w, r, http.StatusForbidden, problem.CodeForbidden, err.Error()+"; use a key that holds it")
		case errors.Is(err, auth.ErrUnauthenticated):
			w.Header().Set("WWW-Authenticate", `Basic realm="inferd admin", charset="UTF-8"`)
			writeProblem(w, r, http.StatusUnauthorized, problem.CodeUnauthorized, unauthorizedDetail(err, "send an admin API key in X-API-Key, or as the password of HTTP Basic authentication"))
		case err != nil:
			s.writeLimit(w, r, err)
		default:
			n, err := s.admit(r, p, scope)
			if err != nil {
				s.writeLimit(w, r, err)
				return
			}
			if n != nil {
				defer n.Add(-1)
			}
			// The dashboard's own writes carry small JSON bodies; none may be larger
			// than an API request.
			if r.Body != nil && r.Body != http.NoBody {
				r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes)
			}
			next.ServeHTTP(w, r)
		}
	})
}

// queueControls answers the dashboard's pause and resume of a queue through
// Options.QueueControl, which is idempotent and knows an unknown queue, instead of
// through asynqmon, which answered 500 to a repeated pause or resume and 204 to a
// queue that does not exist.
func (s *Server) queueControls(next http.Handler) http.Handler {
	if s.opts.QueueControl == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, queueUIPath+"/api/queues/")
		i := strings.LastIndexByte(rest, ':')
		if !ok || r.Method != http.MethodPost || i < 0 {
			next.ServeHTTP(w, r)
			return
		}
		var err error
		switch name, action := rest[:i], rest[i+1:]; action {
		case "pause":
			err = s.opts.QueueControl.PauseQueue(name)
		case "resume":
			err = s.opts.QueueControl.ResumeQueue(name)
		default:
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
