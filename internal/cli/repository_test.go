package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepository drives the model repository extension through inferctl against a
// live server: the index, an unload and a load of a model, and a model added on disk
// (by model init) that a load brings in while the server runs.
func TestRepository(t *testing.T) {
	models := t.TempDir()
	if err := os.CopyFS(models, os.DirFS(filepath.Join(repoRoot(t), "models"))); err != nil {
		t.Fatal(err)
	}
	s := start(t, models)
	// A version added after start: the index lists it, unloaded, until a load.
	dir := filepath.Join(models, "flowers", "1")
	copyFile(t, filepath.Join(repoRoot(t), "models", "iris", "v1", "model.onnx"), filepath.Join(dir, "model.onnx"))
	if r := inferctl(t, nil, "", "model", "init", dir); r.code != 0 {
		t.Fatalf("model init: exit %d: %s", r.code, r.stderr)
	}
	const ready = `{"name":"diabetes","version":"v1","state":"READY"},{"name":"digits","version":"v1","state":"READY"},` +
		`{"name":"digits-cnn","version":"v1","state":"READY"},{"name":"echo","version":"v1","state":"READY"},{"name":"echo","version":"v2","state":"READY"}`
	steps := []struct {
		name   string
		key    string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"index", "dev-key", []string{"repository", "index"}, 0,
			`[` + ready + `,{"name":"flowers","version":"1","state":"UNAVAILABLE","reason":"..."},{"name":"iris","version":"v1","state":"READY"},{"name":"iris","version":"v2","state":"READY"},{"name":"iris-cascade","version":"v1","state":"READY"},{"name":"iris-ensemble","version":"v1","state":"READY"},{"name":"wine","version":"v1","state":"READY"}]`, ""},
		{"index table", "dev-key", []string{"repository", "index", "-o", "table"}, 0,
			"NAME           VERSION  STATE        REASON\ndiabetes       v1       READY        -\n" + strings.Repeat("...\n", 4) +
				"flowers        1        UNAVAILABLE  ...\niris           v1       READY        -\niris           v2       READY        -\n" +
				"iris-cascade   v1       READY        -\niris-ensemble  v1       READY        -\nwine           v1       READY        -", ""},
		{"index of what serves", "dev-key", []string{"repository", "index", "--ready"}, 0,
			`[` + ready + `,{"name":"iris","version":"v1","state":"READY"},{"name":"iris","version":"v2","state":"READY"},{"name":"iris-cascade","version":"v1","state":"READY"},{"name":"iris-ensemble","version":"v1","state":"READY"},{"name":"wine","version":"v1","state":"READY"}]`, ""},
		{"load needs admin", "dev-key", []string{"repository", "load", "flowers"}, 4, "", "inferctl: 403 forbidden: ... (request ...)"},
		{"load the new model", "admin-key", []string{"repository", "load", "flowers"}, 0, `[{"name":"flowers","version":"1","state":"READY"}]`, ""},
		{"it serves", "dev-key", []string{"predict", "flowers", "--input", "[5.1,3.5,1.4,0.2]"}, 0,
			`{"model":"flowers","result":{"logits":[7.3355775,3.3595934,-10.695171]},"version":"1"}`, ""},
		{"unload", "admin-key", []string{"repository", "unload", "iris", "-o", "table"}, 0,
			"NAME  VERSION  STATE        REASON\niris  v1       UNAVAILABLE  ...\niris  v2       UNAVAILABLE  ...", ""},
		{"an unloaded model is not served", "dev-key", []string{"predict", "iris", "--input", "[5.1,3.5,1.4,0.2]"}, 3, "",
			`inferctl: 400 model_not_found: ... (request ...)`},
		{"load it again", "admin-key", []string{"repository", "load", "iris"}, 0,
			`[{"name":"iris","version":"v1","state":"READY"},{"name":"iris","version":"v2","state":"READY"}]`, ""},
		{"load an unknown model", "admin-key", []string{"repository", "load", "nope"}, 3, "", `inferctl: 404 ...: ... (request ...)`},
		{"unload an unknown model", "admin-key", []string{"repository", "unload", "nope"}, 3, "", `inferctl: 404 ...: ... (request ...)`},
		{"load without a name", "admin-key", []string{"repository", "load"}, 2, "",
			"inferctl: repository load takes one model name, got 0 arguments\nrun 'inferctl repository --help' for usage"},
		{"index with a name", "dev-key", []string{"repository", "index", "iris"}, 2, "",
			"inferctl: repository index takes no model name; it lists every model\n..."},
		{"--ready elsewhere", "admin-key", []string{"repository", "load", "iris", "--ready"}, 2, "", "inferctl: --ready is for repository index\n..."},
		{"mistyped verb", "dev-key", []string{"repository", "idnex"}, 2, "",
			"inferctl: repository \"idnex\": want index, load or unload; did you mean \"index\"?\n..."},
		{"no verb", "dev-key", []string{"repository"}, 2, "", "inferctl: repository takes index, or load or unload and a model name\n..."},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := inferctl(t, []string{"INFERD_URL=" + s.URL, "INFERD_API_KEY=" + st.key}, "", st.args...)
			if r.code != st.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, st.code, r.stdout, r.stderr)
			}
			check(t, "stdout", st.stdout, r.stdout)
			check(t, "stderr", st.stderr, r.stderr)
		})
	}
}
