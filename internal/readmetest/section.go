package readmetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Section returns the part of the repository's README.md from the line heading (a
// level-2 heading such as "## Settings") up to the next level-2 heading, or the end.
// The README is found in the test's directory or the nearest parent that has it.
func Section(t testing.TB, heading string) string {
	t.Helper()
	text := "\n" + string(readme(t))
	start := strings.Index(text, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("README.md has no %q section", heading)
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	return section
}

func readme(t testing.TB) []byte {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "README.md"))
		if err == nil {
			return b
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no README.md in the test's directory or a parent")
		}
		dir = parent
	}
}
