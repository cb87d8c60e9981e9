package onnxtest

import (
	"os"
	"sync"
	"testing"

	"github.com/inferd/inferd/internal/backend/onnx"
)

var shared struct {
	once sync.Once
	rt   *onnx.Runtime
	err  error
}

// Runtime returns the process's ONNX Runtime for tests, found through
// ONNXRUNTIME_LIB or the project-local install. When the library is missing the test
// fails under CI (CI=true), where a skip would hide that nothing ran, and is skipped
// elsewhere.
func Runtime(t testing.TB) *onnx.Runtime {
	t.Helper()
	shared.once.Do(func() {
		shared.rt = onnx.New(onnx.Options{Library: os.Getenv("ONNXRUNTIME_LIB")})
		shared.err = shared.rt.Init()
	})
	if shared.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ONNX Runtime is required under CI: %v", shared.err)
		}
		t.Skipf("skipping: %v", shared.err)
	}
	return shared.rt
}

// Write writes g as an ONNX file at path.
func Write(t testing.TB, path string, g Graph) {
	t.Helper()
	if err := os.WriteFile(path, g.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
}
