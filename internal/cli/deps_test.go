package cli_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInferctlLinks: inferctl stays a plain Go binary. model init checks model.yaml
// with the repository's own parser, which links the pipeline; neither ONNX Runtime
// (cgo) nor the tracing exporters and gRPC may come with it.
func TestInferctlLinks(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/inferctl")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/yalue/onnxruntime_go", "github.com/inferd/inferd/internal/backend/onnx", "google.golang.org/grpc", "go.opentelemetry.io/otel/exporters", "go.opentelemetry.io/otel/sdk"} {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") {
				t.Errorf("inferctl links %s", pkg)
			}
		}
	}
}
