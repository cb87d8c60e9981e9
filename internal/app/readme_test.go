package app_test

import (
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
)

// example is one curl call of README.md and the answer the README shows.
type example struct {
	line         int
	method, path string
	key, body    string
	status       int
	want         string
}

// readmeExamples reads the calls of the README's "Example models" section: a curl
// command (continued with \) followed by a "# " line with the answer, optionally
// prefixed by its status when that is not 200.
func readmeExamples(t *testing.T) []example {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Example models")
	if start < 0 {
		t.Fatal("README.md has no Example models section")
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	lines := strings.Split(section, "\n")
	var out []example
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "curl ") {
			continue
		}
		cmd := lines[i]
		first := i
		for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "# ") {
			t.Fatalf("README line %d: a curl example without its answer", first)
		}
		ex := parseCurl(t, cmd)
		ex.line = first
		ex.status, ex.want = http.StatusOK, strings.TrimPrefix(lines[i+1], "# ")
		if code, rest, ok := strings.Cut(ex.want, " "); ok {
			if n, err := strconv.Atoi(code); err == nil {
				ex.status, ex.want = n, rest
			}
		}
		out = append(out, ex)
	}
	if len(out) < 5 {
		t.Fatalf("only %d examples found", len(out))
	}
	return out
}

// parseCurl understands the shapes the README uses: -s, -H 'K: V', -d '...',
// -X METHOD and a localhost:8080 URL.
func parseCurl(t *testing.T, cmd string) example {
	t.Helper()
	var args []string
	for cmd = strings.TrimSpace(cmd); cmd != ""; cmd = strings.TrimSpace(cmd) {
		if cmd[0] == '\'' {
			end := strings.IndexByte(cmd[1:], '\'')
			if end < 0 {
				t.Fatalf("unbalanced quote in %q", cmd)
			}
			args = append(args, cmd[1:end+1])
			cmd = cmd[end+2:]
			continue
		}
		word, rest, _ := strings.Cut(cmd, " ")
		args, cmd = append(args, word), rest
	}
	ex := example{method: http.MethodGet}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-s":
		case a == "-H":
			i++
			if k, v, _ := strings.Cut(args[i], ": "); k == "X-API-Key" {
				ex.key = v
			}
		case a == "-d":
			i++
			ex.body, ex.method = args[i], http.MethodPost
		case a == "-X":
			i++
			ex.method = args[i]
		case strings.HasPrefix(a, "localhost:8080"):
			ex.path = strings.TrimPrefix(a, "localhost:8080")
		default:
			t.Fatalf("unexpected curl argument %q", a)
		}
	}
	return ex
}

// TestReadmeExamples runs the README's example-model calls against a server of the
// example repository and checks each answer holds what the README shows.
func TestReadmeExamples(t *testing.T) {
	s := startApp(t, map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"}, true)
	for _, ex := range readmeExamples(t) {
		t.Run(fmt.Sprintf("line %d %s %s", ex.line, ex.method, ex.path), func(t *testing.T) {
			var body any
			if ex.body != "" {
				body = ex.body
			}
			resp := s.c.Do(s.c.NewRequest(ex.method, ex.path, ex.key, body))
			if resp.Status != ex.status {
				t.Fatalf("status %d, README says %d: %s", resp.Status, ex.status, resp.Body)
			}
			got, want := apitest.Decode(t, resp.Body), apitest.Decode(t, []byte(ex.want))
			if path, ok := subset(want, got, "$"); !ok {
				t.Errorf("at %s the answer differs from the README\n got: %s\nwant: %s", path, resp.Body, ex.want)
			}
		})
	}
}

// subset reports whether every member the README shows is in the answer with the same
// value; the answer may have more members (a problem's request_id, say). Arrays must
// match element for element, numbers digit for digit.
func subset(want, got any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			if p, ok := subset(wv, g[k], path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := subset(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(want, got)
}
