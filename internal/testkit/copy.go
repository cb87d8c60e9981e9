package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// CopyDir copies the tree at src into dst, regular files and directories only, so
// that a test can change or break part of a model repository without touching the
// one in the checkout. The repository reads regular files only, so nothing is
// linked.
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
