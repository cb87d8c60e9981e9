package repository_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
)

// TestUnsafeFiles: only regular files inside the repository load, up to their caps.
// A link to /dev/zero once made a reload read without end, and a FIFO made it hang
// for ever; each is refused before a byte is read, with the file named, and neither
// discovery nor a load waits on it.
func TestUnsafeFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.onnx")
	if err := os.WriteFile(outside, []byte(irisONNX()), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := func(path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	link := func(target string) func(string) {
		return func(path string) {
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		file string       // relative to iris/v1
		make func(string) // puts the file in place; nil leaves the good one
		max  int64        // MaxModelBytes; 0: the default
		want string       // in the error; "" when the version must load
	}{
		{"a link to /dev/zero as the artifact", "model.onnx", link("/dev/zero"), 0, "model.onnx: is a link to a file outside the model repository"},
		{"a named pipe as the artifact", "model.onnx", fifo, 0, "model.onnx: is not a regular file (a named pipe)"},
		{"a named pipe as model.yaml", "model.yaml", fifo, 0, "model.yaml: is not a regular file (a named pipe)"},
		{"a directory as the artifact", "model.onnx", func(p string) { _ = os.Mkdir(p, 0o755) }, 0, "model.onnx: is not a regular file (a directory)"},
		{"a link to a model outside the repository", "model.onnx", link(outside), 0, "outside the model repository (MODELS_DIR)"},
		{"an artifact over MAX_MODEL_BYTES", "model.onnx", nil, 64, "over the 64 a file of its kind may have (MAX_MODEL_BYTES)"},
		{"a link to a file inside the repository", "model.onnx", link("../v2/model.onnx"), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := repo(t, map[string]string{
				"iris/v1/model.yaml": irisYAML, "iris/v1/model.onnx": irisONNX(),
				"iris/v2/model.yaml": irisYAML, "iris/v2/model.onnx": irisONNX(),
			})
			if tt.make != nil {
				p := filepath.Join(dir, "iris", "v1", tt.file)
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				tt.make(p)
			}
			src := repository.New(repository.Options{Dir: dir, Backends: backends(onnxtest.Runtime(t)), MaxModelBytes: tt.max})
			err := loadWithin(t, src, 10*time.Second)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("the version failed: %v", err)
			case tt.want == "":
			case err == nil:
				t.Fatalf("the version loaded; want an error with %q", tt.want)
			case !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), filepath.Join("iris", "v1")):
				t.Errorf("error %q; want it to name the file and say %q", err, tt.want)
			case !errors.Is(err, repository.ErrInvalidConfig):
				t.Errorf("error %v is no ErrInvalidConfig", err)
			}
		})
	}
}

// loadWithin discovers and loads iris v1 from src, failing the test when that takes
// longer than d (it once hung for ever), and returns the version's error.
func loadWithin(t *testing.T, src *repository.Source, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		spec, err := src.Model(context.Background(), "iris")
		if err != nil {
			done <- err
			return
		}
		for _, v := range spec.Versions {
			if v.Version != "v1" {
				continue
			}
			if v.Err != nil {
				done <- v.Err
				return
			}
			p, err := v.Loader.Load(context.Background())
			if err == nil {
				_ = p.Close()
			}
			done <- err
			return
		}
		done <- registry.ErrVersionNotFound
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("loading iris v1 still runs after %s", d)
		return nil
	}
}
