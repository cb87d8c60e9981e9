package worker_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWorkerLinks: inferd-worker serves no API, so it links neither server's code (the
// REST handlers and their contract, the gRPC service) nor the server's wiring; what it
// shares with inferd comes through internal/daemon.
func TestWorkerLinks(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/inferd-worker")
	cmd.Dir = "../.." // the module's root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const module = "github.com/inferd/inferd/"
	banned := []string{module + "internal/httpapi", module + "internal/grpcapi", module + "internal/app", module + "gen/inference"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			if pkg == b || strings.HasPrefix(pkg, b+"/") {
				t.Errorf("inferd-worker links %s", pkg)
			}
		}
	}
}
