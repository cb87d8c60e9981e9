package app_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// settingsRun is a README line that starts the server with settings, e.g.
// "PUBLIC_URL=https://gw.example.com/inferd make run".
var settingsRun = regexp.MustCompile(`^((?:[A-Z_]+=\S+ )+)make run$`)

// TestReadmeSwaggerUI runs the calls of the "Swagger UI" sections of README.md and
// docs/api.md. A "VAR=value make run" line restarts the server with those settings for
// the calls after it.
func TestReadmeSwaggerUI(t *testing.T) {
	section := readmetest.Section(t, "## Swagger UI") + "\n" + readmetest.FileSection(t, "docs/api.md", "## Swagger UI")
	base := map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"}
	s := startApp(t, base, true)
	lines := strings.Split(section, "\n")
	calls := 0
	for i := 0; i < len(lines); i++ {
		if m := settingsRun.FindStringSubmatch(lines[i]); m != nil {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for _, kv := range strings.Fields(m[1]) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			s = startApp(t, env, true)
			continue
		}
		if !strings.HasPrefix(lines[i], "curl ") {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "# text: ") {
			t.Fatalf("Swagger UI sections, line %d: a curl example without a '# text: ' answer", i)
		}
		ex := parseCurl(t, lines[i])
		want := strings.TrimPrefix(lines[i+1], "# text: ")
		calls++
		t.Run(fmt.Sprintf("line %d %s %s", i, ex.method, ex.path), func(t *testing.T) {
			resp := s.c.Get(ex.path, ex.key)
			if resp.Status != 200 || !strings.Contains(string(resp.Body), want) {
				t.Errorf("status %d; the answer lacks %q:\n%.2000s", resp.Status, want, resp.Body)
			}
		})
	}
	if calls < 3 {
		t.Fatalf("only %d calls found in the Swagger UI sections", calls)
	}
}
