package backend

import (
	"errors"
	"fmt"
)

// ErrUnsafeFile marks a model file refused before it is read (see Settings.Read): its
// error names the file already.
var ErrUnsafeFile = errors.New("refused model file")

// ErrLibraryNotFound: a runtime's shared library is not where it was looked for. A
// backend wraps it with the runtime's name, where it looked and how to install one,
// which is the operator's business: the API layer finds it by this sentinel to keep
// that text from clients without importing the backend (and its cgo).
var ErrLibraryNotFound = errors.New("library not found")

// FieldError is a fault in one model.yaml field, such as "artifact"; the repository
// adds the file's name before anyone sees it.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Errorf returns a *FieldError for field.
func Errorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}
