package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LocalLibrary is where tools/onnxruntime.sh installs the library, relative to the
// repository root.
const LocalLibrary = ".onnxruntime/lib/libonnxruntime.so"

// ErrLibraryNotFound: no ONNX Runtime shared library where one was looked for.
var ErrLibraryNotFound = errors.New("ONNX Runtime library not found")

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
			return "", fmt.Errorf("%w: %s: %v", ErrLibraryNotFound, path, errors.Unwrap(err))
		}
		return path, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrLibraryNotFound, err)
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
	return "", fmt.Errorf("%w: no %s in %s or its parents; run `make onnxruntime` (tools/onnxruntime.sh) or set ONNXRUNTIME_LIB to the library's path", ErrLibraryNotFound, LocalLibrary, abs)
}
