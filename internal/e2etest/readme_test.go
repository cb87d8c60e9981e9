package e2etest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/readmetest"
)

// TestReadmeGoSDK builds the README's Go SDK example as a main package inside this
// module, runs it against the server under test and compares what it prints with
// what the README says it prints.
func TestReadmeGoSDK(t *testing.T) {
	tg := start(t)
	section := readmetest.Section(t, "## Go SDK")
	program := fenced(t, section, "go")
	want := fenced(t, section, "text")

	// The example talks to the README's server with the development key.
	program = strings.ReplaceAll(program, `"http://localhost:8080"`, strconv.Quote(tg.url))
	program = strings.ReplaceAll(program, `"dev-key"`, strconv.Quote(devKey()))
	// A dot directory is inside the module (so the SDK resolves to this checkout) but
	// outside ./... patterns that may run meanwhile.
	dir, err := os.MkdirTemp(".", ".readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, "go", "run", ".")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the README's Go example: %v\n%s", err, stderr.String())
	}
	// Request ids differ from run to run.
	ids := regexp.MustCompile(`\(request [^)]+\)`)
	got := ids.ReplaceAllString(string(out), "(request ...)")
	if w := ids.ReplaceAllString(want, "(request ...)"); got != w {
		t.Errorf("the README's Go example printed\n%s\nthe README says\n%s", out, want)
	}
}

// fenced returns the first code block of the given language in text.
func fenced(t *testing.T, text, lang string) string {
	t.Helper()
	open := "```" + lang + "\n"
	i := strings.Index(text, open)
	if i < 0 {
		t.Fatalf("no %s code block", lang)
	}
	body := text[i+len(open):]
	j := strings.Index(body, "```\n")
	if j < 0 {
		t.Fatalf("the %s code block does not end", lang)
	}
	return body[:j]
}
