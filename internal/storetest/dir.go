package storetest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Dir is a repository in a directory of the test's own.
type Dir struct {
	root string
}

// NewDir makes an empty one, removed when the test ends.
func NewDir(t testing.TB) *Dir { return &Dir{root: t.TempDir()} }

// URL is the directory.
func (d *Dir) URL() string { return d.root }

// Env is empty: the disk needs nothing.
func (d *Dir) Env() []string { return nil }

// Put writes the file as an upload tool does: a new file renamed into place.
func (d *Dir) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	name := filepath.Join(d.root, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := name + ".upload"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
}

// Delete removes the file.
func (d *Dir) Delete(t testing.TB, key string) {
	t.Helper()
	if err := os.Remove(filepath.Join(d.root, filepath.FromSlash(key))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}
