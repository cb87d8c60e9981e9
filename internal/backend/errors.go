package backend

import "fmt"

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
