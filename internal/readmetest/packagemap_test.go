package readmetest_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// TestPackageMap fails when the package map of docs/development.md misses a package of
// the module, or names one that is gone: a new package gets its row when it is made.
func TestPackageMap(t *testing.T) {
	root := readmetest.Root(t)
	section := readmetest.FileSection(t, "docs/development.md", "## Package map")
	mapped := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)`").FindAllStringSubmatch(section, -1) {
		mapped[m[1]] = true
	}
	var pkgs []string
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, name)
		rel = filepath.ToSlash(rel)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || rel == "tools" || rel == "sdk") {
			return filepath.SkipDir
		}
		entries, err := os.ReadDir(name)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				pkgs = append(pkgs, rel)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages: %v", len(pkgs), pkgs)
	}
	for _, p := range pkgs {
		if p == "." {
			p = "inferd"
		}
		if !mapped[p] && !mapped[p+" (the module's root)"] {
			t.Errorf("docs/development.md's package map has no row for %s", p)
		}
	}
	for m := range mapped {
		p := strings.TrimSuffix(m, " (the module's root)")
		if p == "inferd" || strings.HasPrefix(p, "tools/") || strings.HasSuffix(p, "/") || strings.HasPrefix(p, "sdk/") {
			continue
		}
		if !slices.Contains(pkgs, p) {
			t.Errorf("docs/development.md's package map names %s, which holds no package", p)
		}
	}
}
