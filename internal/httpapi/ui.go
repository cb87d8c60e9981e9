package httpapi

import (
	"errors"
	"net/http"

	"github.com/inferd/inferd/internal/auth"
)

// queueUIPath is where the queue dashboard is mounted.
const queueUIPath = "/admin/queues"

// requireScope guards pages outside the contract's validator. A browser cannot add
// X-API-Key to a page's own requests, so the key is also taken from HTTP Basic
// authentication's password, and a 401 asks the browser for it.
func (s *Server) requireScope(scope auth.Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(headerAPIKey)
		if key == "" {
			_, key, _ = r.BasicAuth()
		}
		p, err := s.checkKey(r, key, scope)
		switch {
		case errors.Is(err, auth.ErrForbidden):
			writeProblem(w, r, http.StatusForbidden, codeForbidden, err.Error()+"; use a key that holds it")
		case errors.Is(err, auth.ErrUnauthenticated):
			w.Header().Set("WWW-Authenticate", `Basic realm="inferd admin", charset="UTF-8"`)
			writeProblem(w, r, http.StatusUnauthorized, codeUnauthorized, "send an admin API key in X-API-Key, or as the password of HTTP Basic authentication")
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
