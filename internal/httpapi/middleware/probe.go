package middleware

import "github.com/inferd/inferd/internal/httpapi/operation"

// probeOperations are the operations that orchestrators, load balancers and scrapers
// call every few seconds on every process: liveness, readiness and metrics. Their
// access lines are written at debug rather than info, and they are not traced: a
// Kubernetes pod's probes and one Prometheus make over 20 requests a minute
// that say nothing an operator reads, and would bury the lines and traces of the
// API's requests (at LOG_LEVEL=debug the lines are there). A 5xx of one is still
// logged at error, except the readiness answers' 503 (readinessProbes).
var probeOperations = map[string]bool{
	"health": true, "ready": true, "metrics": true, "oipServerLive": true, "oipServerReady": true,
}

// ProbePaths returns the paths of the probe operations, which Tracing.Untraced takes:
// tracing decides before routing, from the path alone.
func ProbePaths(ops *operation.Table) map[string]bool {
	paths := map[string]bool{}
	for _, op := range ops.All() {
		if probeOperations[op.ID] {
			paths[op.Pattern] = true
		}
	}
	return paths
}
