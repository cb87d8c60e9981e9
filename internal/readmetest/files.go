package readmetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Files calls fn with the path (from root, slash-separated) and the text of every file
// under root whose name keep accepts, skipping hidden directories, node_modules and
// the directories named in skip.
func Files(t testing.TB, root string, keep func(name string) bool, fn func(rel string, text []byte), skip ...string) {
	t.Helper()
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && name != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || slices.Contains(skip, d.Name())):
			return filepath.SkipDir
		case d.IsDir() || !keep(d.Name()):
			return nil
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, name)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
