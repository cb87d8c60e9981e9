package main_test

import (
	"strconv"
	"testing"

	"github.com/inferd/inferd/internal/proctest"
)

// startInferd builds the server and starts it on a free port, with no models besides
// echo, no rate limit (the tests load it harder than a client would) and 20 s to shut
// down, plus env. It returns once /ready answers 200, not just /health: a request
// before echo has loaded would be a 503.
func startInferd(t *testing.T, env ...string) *proctest.Proc {
	t.Helper()
	bin := proctest.Build(t, "inferd")
	port := proctest.FreePort(t)
	base := []string{"PORT=" + strconv.Itoa(port), "MODELS_DIR=" + t.TempDir(), "SHUTDOWN_TIMEOUT=20s", "RATE_LIMIT_RPS=0"}
	return proctest.Start(t, bin, port, "/ready", append(base, env...)...)
}
