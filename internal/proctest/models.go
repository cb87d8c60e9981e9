package proctest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// ExampleModels copies the repository's example models (models/) into a folder of the
// test's own, for a MODELS_DIR that the test may add to without touching the checkout.
func ExampleModels(t testing.TB) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(repoRoot(t), "models"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// AddSlowModel puts into the model repository dir an echo model that takes delay per
// call, for jobs that must still be running when the test acts on them. Add it before
// starting a process: processes discover models at start.
func AddSlowModel(t testing.TB, dir, name, version string, delay time.Duration) {
	t.Helper()
	vdir := filepath.Join(dir, name, version)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "description: echo with simulated latency\nbackend: echo\ndelay: " + delay.String() + "\n"
	if err := os.WriteFile(filepath.Join(vdir, "model.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}
