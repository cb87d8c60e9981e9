package readmetest_test

import (
	"os"
	"path"
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
	isTest := func(name string) bool { return strings.HasSuffix(name, "_test.go") }
	readmetest.Files(t, root, isTest, func(rel string, b []byte) {
		for _, m := range target.FindAllSubmatch(b, -1) {
			found = append(found, string(m[1])+":./"+path.Dir(rel))
		}
	}, "testdata")
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
