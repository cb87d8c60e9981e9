package redact

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/inferd/inferd/internal/backend"
)

// libraryMissing replaces, in what clients see, the ONNX Runtime library's own error:
// it names the server's directories and how to build the library, which is the
// operator's business (the log has it).
const libraryMissing = "ONNX Runtime is not available on this server (its log says why)"

// absPath is an absolute path of two or more elements, as load errors quote them.
var absPath = regexp.MustCompile(`(^|[\s"'(=])(/[^\s"'():,]+/[^\s"'():,]+)`)

// Redactor words load errors for clients. The zero value knows no model repository:
// it cuts every absolute path to its last element.
type Redactor struct {
	dirs []string // the model repository, as load errors may spell it
}

// New returns the Redactor for the model repository dir (MODELS_DIR).
func New(dir string) Redactor { return Redactor{dirs: repositoryDirs(dir)} }

// LoadError is a load error as clients see it: paths inside the model repository
// relative to it (iris/v3/model.yaml), any other absolute path cut to its last element,
// and the ONNX Runtime library's error replaced by a line that says only that it is
// missing. The log keeps the whole error.
func (rd Redactor) LoadError(err error) string {
	if err == nil {
		return "unknown error"
	}
	msg := err.Error()
	if lib := deepest(err, backend.ErrLibraryNotFound); lib != nil {
		msg = strings.Replace(msg, lib.Error(), libraryMissing, 1)
	}
	for _, dir := range rd.dirs {
		msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
	}
	return absPath.ReplaceAllStringFunc(msg, func(m string) string {
		sub := absPath.FindStringSubmatch(m)
		return sub[1] + filepath.Base(sub[2])
	})
}

// deepest returns the innermost error in err's chain that wraps target (not target
// itself), or nil.
func deepest(err error, target error) error {
	var found error
	var walk func(e error)
	walk = func(e error) {
		if e == nil || e == target || !errors.Is(e, target) {
			return
		}
		found = e
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return found
}

// repositoryDirs are the spellings of the model repository's directory that load
// errors may quote: as configured, and absolute.
func repositoryDirs(dir string) []string {
	if dir == "" {
		return nil
	}
	out := []string{filepath.Clean(dir)}
	if abs, err := filepath.Abs(dir); err == nil && abs != out[0] {
		out = append(out, abs)
	}
	// The longest first, so an absolute path is not cut by a shorter relative one.
	if len(out) == 2 && len(out[1]) > len(out[0]) {
		out[0], out[1] = out[1], out[0]
	}
	return out
}
