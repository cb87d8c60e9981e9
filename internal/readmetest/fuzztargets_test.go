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

// TestFuzzTargets holds the Makefile's FUZZTARGETS to the module's fuzz targets, both
// ways: go test -fuzz with a pattern that matches nothing passes, so a misplaced entry
// would be reported fuzzed and never run (two were), and a target left out is never
// fuzzed by make fuzz at all.
func TestFuzzTargets(t *testing.T) {
	root := readmetest.Root(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)FUZZTARGETS\s*:=(.*?)\n\S`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no FUZZTARGETS")
	}
	listed := strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " "))
	var found []string
	target := regexp.MustCompile(`(?m)^func (Fuzz\w*)\(f \*testing\.F\)`)
	err = filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && name != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(name, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(name))
		for _, m := range target.FindAllSubmatch(b, -1) {
			found = append(found, string(m[1])+":./"+filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if !slices.Contains(listed, f) {
			t.Errorf("fuzz target %s is not in the Makefile's FUZZTARGETS", f)
		}
	}
	for _, l := range listed {
		if !slices.Contains(found, l) {
			t.Errorf("FUZZTARGETS names %s, which is not a fuzz target of that package", l)
		}
	}
}
