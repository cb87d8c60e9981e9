package httpapi

import "github.com/inferd/inferd/gen/api"

// readiness is /ready's answer: loading until every version of the load at start has
// loaded; failed, once that load has finished, while a version whose load at start
// failed has no pipeline (strict readiness: a bad rollout must not take traffic; the
// contract's ready means every pipeline is loaded), unless Options.ReadyAllowFailed.
// A load after start, failed or under way, never changes it: one model's failed
// repository load must not take a serving pod out of its load balancer. The failed
// versions are listed in every state, with the reason clients are told and whether
// their load at start failed.
func (s *Server) readiness() api.Readiness {
	out := api.Readiness{Status: api.ReadinessStatusReady, Failed: []api.FailedModel{}}
	for _, e := range s.reg.Failed() {
		out.Failed = append(out.Failed, s.failedModel(e))
	}
	switch {
	case !s.reg.Ready():
		out.Status = api.ReadinessStatusLoading
	case !s.opts.ReadyAllowFailed && s.reg.FailedAtStart():
		out.Status = api.ReadinessStatusFailed
	}
	return out
}

// Drain starts the server's drain after SIGTERM: /ready answers 503 stopping, so load
// balancers and Kubernetes endpoints take the server out, and every answer says
// Connection: close (middleware.CloseWhile), so keep-alive clients open their next
// request on a new connection (to another server, once they have) instead of sending
// it on one the server is about to close. Requests are still served in full
// meanwhile, except long polls of jobs, which answer the record as it is at once, so
// their clients ask again elsewhere.
func (s *Server) Drain() {
	s.draining.Store(true)
	if s.jobs != nil {
		s.jobs.EndWaits()
	}
}
