package app_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/inferd/inferd/internal/testkit"
)

// TestUnsafeArtifacts: a reload of a version whose artifact an operator replaced by a
// link to /dev/zero or a named pipe answers at once, 500 reload_failed naming the file
// by its path in the repository, and the old pipeline keeps serving.
func TestUnsafeArtifacts(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0"}, true)
	artifact := filepath.Join(dir, "iris", "v1", "model.onnx")
	tests := []struct {
		name, want string
		make       func() error
	}{
		{"a link to /dev/zero", "iris/v1/model.onnx: is a link to a file outside the model repository", func() error { return os.Symlink("/dev/zero", artifact) }},
		{"a named pipe", "iris/v1/model.onnx: is not a regular file (a named pipe)", func() error { return syscall.Mkfifo(artifact, 0o644) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.Remove(artifact); err != nil {
				t.Fatal(err)
			}
			if err := tt.make(); err != nil {
				t.Fatal(err)
			}
			resp := s.c.Post("/admin/models/iris/v1/reload", "admin-key", nil)
			p := resp.Problem(t)
			if resp.Status != http.StatusInternalServerError || p.Code != "reload_failed" || !strings.Contains(p.Detail, tt.want) || strings.Contains(p.Detail, dir) {
				t.Errorf("%d %+v; want 500 reload_failed saying %q, with no server path", resp.Status, p, tt.want)
			}
			if resp := s.c.Post("/predict", "dev-key", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`); resp.Status != http.StatusOK {
				t.Errorf("the old pipeline: %d %s", resp.Status, resp.Body)
			}
		})
	}
}
