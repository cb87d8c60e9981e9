package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/inferd/inferd/internal/backend"
)

// LocalLibrary is where tools/onnxruntime.sh installs the library, relative to the
// repository root.
const LocalLibrary = ".onnxruntime/lib/libonnxruntime.so"

// libraryNotFound is backend.ErrLibraryNotFound for the ONNX Runtime library, with
// format and args saying where it was looked for.
func libraryNotFound(format string, args ...any) error {
	return fmt.Errorf("ONNX Runtime %w: %s", backend.ErrLibraryNotFound, fmt.Sprintf(format, args...))
}

// FindLibrary returns the shared library to load. A path that names a file (it has a
// slash) must exist; a bare file name such as libonnxruntime.so.1 is left to the
// dynamic loader's search. An empty path means LocalLibrary in dir or the nearest
// parent of dir that has one, so a server started anywhere in a checkout, and a test
// in any package, finds the library that `make onnxruntime` installed.
func FindLibrary(path, dir string) (string, error) {
	if path != "" {
		if !strings.Contains(path, "/") {
			return path, nil
		}
		if _, err := os.Stat(path); err != nil {
			return "", libraryNotFound("%s: %v", path, errors.Unwrap(err))
		}
		return path, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", libraryNotFound("%v", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, LocalLibrary)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", libraryNotFound("no %s in %s or its parents; run `make onnxruntime` (tools/onnxruntime.sh) or set ONNXRUNTIME_LIB to the library's path", LocalLibrary, abs)
}
