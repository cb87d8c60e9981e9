package httpapi

import (
	"net/http"
)

// Drain starts the server's drain after SIGTERM: /ready answers 503 stopping, so load
// balancers and Kubernetes endpoints take the server out, and every answer says
// Connection: close, so keep-alive clients open their next request on a new connection
// (to another server, once they have) instead of sending it on one the server is about
// to close. Requests are still served in full meanwhile, except long polls of jobs,
// which answer the record as it is at once, so their clients ask again elsewhere.
func (s *Server) Drain() {
	s.draining.Store(true)
	if s.jobs != nil {
		s.jobs.EndWaits()
	}
}

// closeWhileDraining asks each client to close its connection after this answer once
// Drain has been called. net/http then closes it after the answer is written, so no
// request is ever sent on a connection that Shutdown closes as idle.
func (s *Server) closeWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
