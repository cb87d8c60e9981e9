package dir_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/inferd/inferd/internal/store"
	"github.com/inferd/inferd/internal/store/dir"
	"github.com/inferd/inferd/internal/storetest"
)

func TestConformance(t *testing.T) {
	b := storetest.NewDir(t)
	s, err := dir.New(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	storetest.Conformance(t, b, s)
}

// TestOutsideRoot: no key reaches a file outside the directory, and a link to a file
// is read as the file.
func TestOutsideRoot(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "m", "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "m", "v1", "model.onnx")); err != nil {
		t.Fatal(err)
	}
	s, err := dir.New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"../secret", "/etc/passwd", "m/../../secret", ""} {
		t.Run(key, func(t *testing.T) {
			if _, _, err := s.Get(context.Background(), key, 0, ""); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Get(%q): %v, want ErrNotFound", key, err)
			}
		})
	}
	objs, err := s.List(context.Background(), "")
	if err != nil || len(objs) != 1 || objs[0].Key != "m/v1/model.onnx" || objs[0].Size != 6 {
		t.Errorf("List = %+v, %v: want the link, as the file it links to", objs, err)
	}
	if _, err := dir.New(filepath.Join(root, "nothing")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("New of a missing directory: %v, want ErrNotFound", err)
	}
}
