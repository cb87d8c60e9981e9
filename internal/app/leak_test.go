package app_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/testkit"
)

// TestLoadErrorsKeepServerPaths (see docs/design.md#load-errors-keep-the-servers-paths-to-themselves): what clients see of a load
// error (a version's metadata, the failed list, a 503's detail) names files relative
// to the model repository, never the server's directories.
func TestLoadErrorsKeepServerPaths(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	write := func(rel, text string) {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("iris/v3/model.yaml", "backend: onnx\nartifact: model.onnx\n") // no model.onnx
	write("broken/v1/model.yaml", "backend: echo\npreprocess: [nope]\n")
	// Ready (with strict readiness off) once loading has finished, failures included.
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "READY_ALLOW_FAILED": "true"}, true)
	c := s.c

	for _, tc := range []struct {
		name string
		req  *http.Request
		want string // a part of the answer that names the file relative to the repository
	}{
		{"metadata of a version without its artifact", c.NewRequest(http.MethodGet, "/models/iris/v3", "dev-key", nil), "iris/v3/model.yaml"},
		{"metadata of a version with a bad step", c.NewRequest(http.MethodGet, "/models/broken/v1", "dev-key", nil), "broken/v1/model.yaml"},
		{"the failed list", c.NewRequest(http.MethodGet, "/debug/models/loaded", "admin-key", nil), "iris/v3/model.yaml"},
		{"a prediction's 503", c.NewRequest(http.MethodPost, "/predict", "dev-key", `{"model":"iris","version":"v3","data":[1,2,3,4]}`), "iris/v3/model.yaml"},
		{"a job's 503", c.NewRequest(http.MethodPost, "/predict/async", "dev-key", `{"model":"broken","data":1}`), "broken/v1/model.yaml"},
		{"a reload's 500", c.NewRequest(http.MethodPost, "/admin/models/iris/v3/reload", "admin-key", nil), "model.onnx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := c.Do(tc.req)
			body := string(resp.Body)
			if strings.Contains(body, dir) || strings.Contains(body, filepath.Dir(dir)) {
				t.Errorf("the answer names the server's directory %s: %s", dir, body)
			}
			if !strings.Contains(body, tc.want) {
				t.Errorf("the answer does not name %s: %s", tc.want, body)
			}
		})
	}
}
