package readmetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Section returns the part of the repository's README.md from the line heading (a
// level-2 heading such as "## Go SDK") up to the next level-2 heading, or the end.
func Section(t testing.TB, heading string) string {
	t.Helper()
	return FileSection(t, "README.md", heading)
}

// FileSection is Section for any Markdown file of the repository, named by its path
// from the repository's root ("docs/api.md"): examples moved out of the README stay
// as checked as those left in it.
func FileSection(t testing.TB, file, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(t), filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	text := "\n" + string(b)
	start := strings.Index(text, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("%s has no %q section", file, heading)
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	return section
}

// Root is the repository's root: the test's directory or the nearest parent that
// has a README.md.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no README.md in the test's directory or a parent")
		}
		dir = parent
	}
}
