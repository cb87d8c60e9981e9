package app_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// TestReadmeProfiling runs the curl calls of docs/api.md's Profiling section against a
// server of the example repository: each answer has the status, content type and
// start of body the line under the call shows ("# STATUS TYPE [START]").
func TestReadmeProfiling(t *testing.T) {
	section := readmetest.FileSection(t, "docs/api.md", "## Profiling")
	call := regexp.MustCompile(`^curl -s -H 'X-API-Key: ([^']+)'(?: -o \S+)? '?localhost:8080([^' ]+)'?$`)
	answer := regexp.MustCompile(`^# (\d{3}) (\S+) ?(.*)$`)
	s := startApp(t, map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"}, true)
	lines := strings.Split(section, "\n")
	n := 0
	for i, line := range lines {
		if !strings.HasPrefix(line, "curl ") {
			continue
		}
		c := call.FindStringSubmatch(line)
		var a []string
		if i+1 < len(lines) {
			a = answer.FindStringSubmatch(lines[i+1])
		}
		if c == nil || a == nil {
			t.Fatalf("README line %q: not a call of the checked shape followed by its answer", line)
		}
		n++
		t.Run(c[2], func(t *testing.T) {
			if testing.Short() && a[1] == "200" && strings.Contains(c[2], "seconds=") {
				t.Skip("a profile runs its seconds of real time; runs without -short (make test)")
			}
			resp := s.c.Do(s.c.NewRequest(http.MethodGet, c[2], c[1], nil))
			if strconv.Itoa(resp.Status) != a[1] {
				t.Fatalf("status %d, README says %s", resp.Status, a[1])
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, a[2]) {
				t.Errorf("Content-Type %q, README says %s", ct, a[2])
			}
			if !bytes.HasPrefix(resp.Body, []byte(a[3])) {
				t.Errorf("body starts %.60q, README says %q", resp.Body, a[3])
			}
		})
	}
	if n < 3 {
		t.Fatalf("only %d calls in the Profiling section", n)
	}
}
