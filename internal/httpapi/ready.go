package httpapi

import "github.com/inferd/inferd/gen/api"

// readiness is /ready's answer: loading until every version has loaded, and so also
// while a version has no pipeline because its load failed (strict readiness: a bad
// rollout must not take traffic; the contract's two states say ready only when every
// pipeline is loaded), unless Options.ReadyAllowFailed. The failed versions are listed
// in both states, with the reason clients are told.
func (s *Server) readiness() api.Readiness {
	out := api.Readiness{Status: api.ReadinessStatusReady, Failed: []api.FailedModel{}}
	for _, e := range s.reg.Failed() {
		out.Failed = append(out.Failed, api.FailedModel{Name: e.Name, Version: e.Version, Error: s.loadErrorText(e.Err)})
	}
	if !s.reg.Ready() || (len(out.Failed) > 0 && !s.opts.ReadyAllowFailed) {
		out.Status = api.ReadinessStatusLoading
	}
	return out
}
