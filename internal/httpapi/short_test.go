package httpapi_test

import (
	"strings"
	"testing"
)

// skipTimedProfile skips, with -short, a request that would take a CPU profile or an
// execution trace: the server runs it for its seconds of real time. Call it only for a
// request that is let through; one refused answers at once.
func skipTimedProfile(t *testing.T, target string) {
	t.Helper()
	if testing.Short() && strings.Contains(target, "/debug/pprof/") && strings.Contains(target, "seconds=") {
		t.Skip("a profile or trace runs its seconds of real time; runs without -short (make test)")
	}
}
