package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// TestCommands runs every command of the built inferctl against a live server: the
// output, the one-line problem on stderr and the exit code.
func TestCommands(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	input := filepath.Join(dir, "flower.json")
	if err := os.WriteFile(input, []byte("{\"sepal_length\": 6.7, \"sepal_width\": 3.0,\n \"petal_length\": 5.2, \"petal_width\": 2.3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	array := filepath.Join(dir, "items.json")
	if err := os.WriteFile(array, []byte("[1,\n {\"a\": 2}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		key    string // INFERD_API_KEY
		stdin  string
		args   []string
		code   int
		stdout string // every line, in the README's shorthand (readmetest); "" when nothing
		stderr string // in the README's shorthand (readmetest); "" when nothing
	}{
		{name: "predict inline", key: "dev-key", args: []string{"predict", "iris", "--version", "v1", "--input", "[5.1,3.5,1.4,0.2]"},
			stdout: `{"model":"iris","result":[{"label":"setosa","score":0.9816},{"label":"versicolor","score":0.0184},{"label":"virginica","score":0}],"version":"v1"}`},
		{name: "predict file, flags after the model", key: "dev-key", args: []string{"predict", "iris", "-f", input, "--version", "v1"},
			stdout: `{"model":"iris","result":[{"label":"virginica","score":0.9199},{"label":"versicolor","score":0.0801},{"label":"setosa","score":0.0001}],"version":"v1"}`},
		{name: "predict stdin keeps big numbers", key: "dev-key", stdin: `{"n": 12345678901234567890, "s": "<&>"}`, args: []string{"predict", "echo", "--version", "v1", "-"},
			stdout: `{"model":"echo","result":{"n":12345678901234567890,"s":"<&>"},"version":"v1"}`},
		{name: "predict table, global flags first", key: "dev-key", args: []string{"-o", "table", "predict", "iris", "--version", "v1", "--input", "[5.1,3.5,1.4,0.2]"},
			stdout: "FIELD    VALUE\nmodel    iris\nversion  v1\n\nRESULT:\nLABEL       SCORE\nsetosa      0.9816\nversicolor  0.0184\nvirginica   0"},
		{name: "predict names the version routing chose", key: "dev-key", args: []string{"predict", "echo", "--input", "1"},
			stdout: `{"model":"echo","result":1,"version":"v2"}`},
		{name: "predict table names the version routing chose", key: "dev-key", args: []string{"predict", "echo", "--input", "1", "-o", "table"},
			stdout: "FIELD    VALUE\nmodel    echo\nresult   1\nversion  v2"},
		{name: "predict 400", key: "dev-key", args: []string{"predict", "iris", "--version", "v1", "--input", "[5.1,3.5,1.4]"},
			code: 3, stderr: `inferctl: 400 invalid_input: data: expected 4 numbers, got 3 (request ...)`},
		{name: "predict unknown model", key: "dev-key", args: []string{"predict", "nope", "--input", "1"},
			code: 3, stderr: `inferctl: 400 model_not_found: ...no model named "nope"... (request ...)`},
		{name: "predict 401", args: []string{"predict", "echo", "--input", "1"},
			code: 4, stderr: `inferctl: 401 unauthorized: send a valid API key in the X-API-Key header (request ...)`},
		{name: "predict unknown key", key: "wrong", args: []string{"predict", "echo", "--input", "1"},
			code: 4, stderr: `inferctl: 401 unauthorized: ... (request ...)`},
		{name: "predict input not JSON", key: "dev-key", args: []string{"predict", "echo", "--input", "{nope"},
			code: 2, stderr: "inferctl: --input is not a JSON value: ...\nrun 'inferctl predict --help' for usage"},
		{name: "predict file missing", key: "dev-key", args: []string{"predict", "echo", "-f", "nope.json"},
			code: 1, stderr: "inferctl: open nope.json: no such file or directory"},
		{name: "predict no input", key: "dev-key", args: []string{"predict", "echo"},
			code: 2, stderr: "inferctl: no input: give --input JSON, -f file, or - to read stdin\nrun 'inferctl predict --help' for usage"},
		{name: "models list", key: "dev-key", args: []string{"models", "list"},
			stdout: `{"models":[{"name":"diabetes","version":"v1"},{"name":"digits","version":"v1"},{"name":"digits-cnn","version":"v1"},{"name":"echo","version":"v1"},{"name":"echo","version":"v2"},{"name":"iris","version":"v1"},{"name":"iris","version":"v2"},{"name":"iris-cascade","version":"v1"},{"name":"iris-ensemble","version":"v1"},{"name":"slow","version":"v1"},{"name":"wine","version":"v1"}]}`},
		{name: "models list table", key: "dev-key", args: []string{"models", "list", "-o", "table"},
			stdout: "NAME           VERSION\ndiabetes       v1\ndigits         v1\ndigits-cnn     v1\necho           v1\necho           v2\niris           v1\niris           v2\niris-cascade   v1\niris-ensemble  v1\nslow           v1\nwine           v1"},
		{name: "models get", key: "dev-key", args: []string{"models", "get", "iris", "v1"},
			stdout: `{"name":"iris","version":"v1","status":"ready","error":null,"versions":["v1","v2"],"routing":{"strategy":"weighted","weights":{"v1":90,"v2":10}}}`},
		{name: "models get, the deprecated --version", key: "dev-key", args: []string{"models", "get", "iris", "--version", "v1"},
			stdout: `{"name":"iris","version":"v1","status":"ready"}`,
			stderr: "inferctl: --version is deprecated for models get; give the version as an argument: inferctl models get iris v1"},
		{name: "models get latest", key: "dev-key", args: []string{"models", "get", "iris"},
			stdout: `{"name":"iris","version":"v2","status":"ready"}`},
		{name: "models get 404", key: "dev-key", args: []string{"models", "get", "iris", "v9"},
			code: 3, stderr: `inferctl: 404 version_not_found: ... (request ...)`},
		{name: "models get unknown name", key: "dev-key", args: []string{"models", "get", "nope"},
			code: 3, stderr: `inferctl: no model named "nope"; 'inferctl models list' shows the registry`},
		{name: "reload", key: "admin-key", args: []string{"reload", "echo", "v1"},
			stdout: `{"name":"echo","version":"v1","loaded_at":"...","load_duration_ms":"..."}`},
		{name: "reload, global flags after", args: []string{"reload", "echo", "v2", "--api-key", "admin-key", "-o", "table"},
			stdout: "FIELD             VALUE\nload_duration_ms  ...\nloaded_at         ...\nname              echo\nversion           v2"},
		{name: "reload the latest", key: "admin-key", args: []string{"reload", "iris"},
			stdout: `{"name":"iris","version":"v2","loaded_at":"...","load_duration_ms":"..."}`},
		{name: "reload, the deprecated --version", key: "admin-key", args: []string{"reload", "echo", "--version", "v1"},
			stdout: `{"name":"echo","version":"v1","loaded_at":"...","load_duration_ms":"..."}`,
			stderr: "inferctl: --version is deprecated for reload; give the version as an argument: inferctl reload echo v1"},
		{name: "reload, the version twice", key: "admin-key", args: []string{"reload", "echo", "v1", "--version", "v2"},
			code: 2, stderr: "inferctl: give the version once: inferctl reload echo v1, without --version\nrun 'inferctl reload --help' for usage"},
		{name: "reload, three arguments", key: "admin-key", args: []string{"reload", "echo", "v1", "v2"},
			code: 2, stderr: "inferctl: reload takes a model name and a version (default: the model's latest), got 3 arguments\n..."},
		{name: "reload unknown version", key: "admin-key", args: []string{"reload", "echo", "v9"},
			code: 3, stderr: `inferctl: 404 version_not_found: ... (request ...)`},
		{name: "reload 403", key: "dev-key", args: []string{"reload", "echo", "v1"},
			code: 4, stderr: `inferctl: 403 forbidden: ... (request ...)`},
		{name: "memory", key: "admin-key", args: []string{"memory"},
			stdout: `{"pipelines":[{"name":"diabetes","version":"v1","bytes":"..."}, ...],"process":{"rss_bytes":"..."}}`},
		{name: "memory table", key: "admin-key", args: []string{"memory", "-o", "table"},
			stdout: "FIELD...VALUE\n" + strings.Repeat("process...\n", 5) + "\nPIPELINES:\nARTIFACT_BYTES...NAME...VERSION\n" + strings.Repeat("...\n", 11)},
		{name: "jobs get 404", key: "dev-key", args: []string{"jobs", "get", "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b"},
			code: 3, stderr: `inferctl: 404 job_not_found: ... (request ...)`},
		{name: "submit and wait", key: "dev-key", args: []string{"submit", "echo", "--input", `{"a":1}`, "--wait", "--progress"},
			stdout: `{"job_id":"...","status":"succeeded","model":"echo","batch":false,"result":{"a":1},"error_message":null}`,
			stderr: "...job ...  succeeded  ..."},
		{name: "submit batch from CSV and wait", key: "dev-key", args: []string{"submit", "iris", "--version", "v1", "--batch", "-f", "docs/examples/flowers.csv", "--wait"},
			stdout: `{"status":"succeeded","batch":true,"result":[[{"label":"setosa","score":0.9816}, ...], ...]}`},
		{name: "submit batch inline", key: "dev-key", args: []string{"submit", "echo", "--batch", "--input", `[1,"two",null]`, "--wait"},
			stdout: `{"status":"succeeded","batch":true,"result":[1,"two",null]}`},
		{name: "submit batch from a JSON array file", key: "dev-key", args: []string{"submit", "echo", "--batch", "-f", array, "--wait"},
			stdout: `{"status":"succeeded","batch":true,"result":[1,{"a":2}]}`},
		{name: "submit batch, not an array", key: "dev-key", args: []string{"submit", "echo", "--batch", "--input", "{}"},
			code: 2, stderr: "inferctl: with --batch, the input must be a JSON array of at least one item (or a .jsonl or .csv file)\n..."},
		{name: "submit without wait", key: "dev-key", args: []string{"submit", "echo", "--input", "1"},
			stdout: `{"job_id":"..."}`},
		{name: "job failed", key: "dev-key", args: []string{"submit", "iris", "--version", "v1", "--input", "[1,2]", "--wait"},
			code: 6, stdout: `{"status":"failed","error_message":"data: expected 4 numbers, got 2","result":null}`,
			stderr: `inferctl: job ... failed: data: expected 4 numbers, got 2`},
		{name: "version", args: []string{"version"}, stdout: `{"version":"...","commit":"...","contract":"...","go":"..."}`},
		{name: "help", args: []string{"--help"}, stdout: "inferctl: the command-line client of inferd\n" + strings.Repeat("...\n", 33)},
		{name: "command help", args: []string{"batch", "--help"}, stdout: "Usage: inferctl batch <model> -f ...\n" + strings.Repeat("...\n", 24)},
		{name: "no command", args: nil, code: 2, stderr: "inferctl: the command-line client of inferd\n" + strings.Repeat("...\n", 33)},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: `inferctl: unknown command "frobnicate"; run 'inferctl --help' for the list`},
		{name: "mistyped command", args: []string{"relaod", "echo", "v1"}, code: 2,
			stderr: "inferctl: unknown command \"relaod\"\n\nDid you mean this?\n\treload\n\nrun 'inferctl --help' for the list"},
		{name: "command cut short", args: []string{"m"}, code: 2,
			stderr: "inferctl: unknown command \"m\"\n\nDid you mean this?\n\tmodel\n\tmodels\n\tmemory\n\nrun 'inferctl --help' for the list"},
		{name: "mistyped subcommand", key: "dev-key", args: []string{"models", "lsit"}, code: 2,
			stderr: "inferctl: models \"lsit\": want list or get; did you mean \"list\"?\nrun 'inferctl models --help' for usage"},
		{name: "mistyped jobs verb", key: "dev-key", args: []string{"jobs", "cancle", "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b"}, code: 2,
			stderr: "inferctl: jobs \"cancle\": want get, cancel or wait; did you mean \"cancel\"?\n..."},
		{name: "mistyped flag", args: []string{"models", "list", "--otuput", "table"}, code: 2,
			stderr: "inferctl: flag provided but not defined: -otuput\nrun 'inferctl models --help' for usage"},
		{name: "mistyped command flag", args: []string{"batch", "echo", "-f", "-", "--chnuk", "2"}, code: 2,
			stderr: "inferctl: flag provided but not defined: -chnuk; did you mean --chunk?\nrun 'inferctl batch --help' for usage"},
		{name: "mistyped global flag", args: []string{"--tiemout", "1s", "models", "list"}, code: 2,
			stderr: "inferctl: flag provided but not defined: -tiemout; did you mean --timeout?\nrun 'inferctl --help' for usage"},
		{name: "unknown flag", args: []string{"models", "list", "--nope"}, code: 2, stderr: "inferctl: flag provided but not defined: -nope\nrun 'inferctl models --help' for usage"},
		{name: "bad output", args: []string{"models", "list", "-o", "yaml"}, code: 2, stderr: "inferctl: -o \"yaml\": want json or table\n..."},
		{name: "bad timeout", args: []string{"--timeout", "0", "models", "list"}, code: 2, stderr: "inferctl: --timeout 0s: want a positive duration; run 'inferctl --help' for usage"},
		{name: "unreachable", key: "dev-key", args: []string{"--url", "http://127.0.0.1:1", "models", "list"}, code: 5, stderr: `inferctl: Get "http://127.0.0.1:1/models": ...connection refused`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"INFERD_URL=" + s.URL}
			if tc.key != "" {
				env = append(env, "INFERD_API_KEY="+tc.key)
			}
			r := inferctl(t, env, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			check(t, "stdout", tc.stdout, r.stdout)
			check(t, "stderr", tc.stderr, r.stderr)
		})
	}
}

func check(t *testing.T, what, want, got string) {
	t.Helper()
	if want == "" {
		if got != "" {
			t.Errorf("%s: want nothing, got:\n%s", what, got)
		}
		return
	}
	if err := readmetest.Lines(want, got); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// TestJobs follows one job through submit, get, cancel and wait: a job cancelled while
// it runs makes `jobs wait` exit 7, and a second cancel is a 409.
func TestJobs(t *testing.T) {
	s := startServer(t)
	env := []string{"INFERD_URL=" + s.URL, "INFERD_API_KEY=dev-key"}
	r := inferctl(t, env, "", "submit", "slow", "--input", `"zzz"`)
	if r.code != 0 {
		t.Fatalf("submit: exit %d: %s", r.code, r.stderr)
	}
	var sub struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sub); err != nil || sub.JobID == "" {
		t.Fatalf("submit printed %q: %v", r.stdout, err)
	}
	id := sub.JobID
	steps := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"get", []string{"jobs", "get", id}, 0, `{"job_id":"` + id + `","model":"slow","version":"v1"}`, ""},
		{"cancel", []string{"jobs", "cancel", id}, 0, `{"job_id":"` + id + `","status":"cancelled"}`, ""},
		{"wait on a cancelled job", []string{"jobs", "wait", id, "--progress"}, 7, `{"job_id":"` + id + `","status":"cancelled"}`,
			"\rjob " + id + "  cancelled  ...\ninferctl: job " + id + " cancelled"},
		{"cancel again", []string{"jobs", "cancel", id}, 3, "", `inferctl: 409 job_finished: ... (request ...)`},
		{"bad verb", []string{"jobs", "list", id}, 2, "", "inferctl: jobs \"list\": want get, cancel or wait\n..."},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := inferctl(t, env, "", st.args...)
			if r.code != st.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, st.code, r.stdout, r.stderr)
			}
			check(t, "stdout", st.stdout, r.stdout)
			check(t, "stderr", st.stderr, r.stderr)
		})
	}
	t.Run("get table", func(t *testing.T) {
		r := inferctl(t, env, "", "jobs", "get", id, "-o", "table")
		for _, want := range []string{"FIELD", "job_id", id, "status", "cancelled"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("the table lacks %q:\n%s", want, r.stdout)
			}
		}
	})
	if got := s.seen(http.MethodDelete, "/predict/async/"+id); fmt.Sprint(got) != "[200 409]" {
		t.Errorf("cancels answered %v, want [200 409]", got)
	}
}
