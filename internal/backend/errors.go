package backend

import (
	"errors"
	"fmt"
)

// ErrUnsafeFile marks a model file refused before it is read (see Settings.Read): its
// error names the file already.
var ErrUnsafeFile = errors.New("refused model file")

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
