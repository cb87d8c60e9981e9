package middleware

import (
	"net/http"
)

// CloseWhile asks each client to close its connection after this answer while
// draining reports true (from the server's Drain on). net/http then closes it after
// the answer is written, so no request is ever sent on a connection that Shutdown
// closes as idle.
func CloseWhile(draining func() bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if draining() {
				w.Header().Set("Connection", "close")
			}
			next.ServeHTTP(w, r)
		})
	}
}
