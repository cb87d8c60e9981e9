package repository

import (
	"errors"
	"strings"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/pipeline/step"
)

var (
	// ErrInvalidConfig marks a model.yaml or routing.yaml that cannot work; the error
	// is a *ConfigError naming the file and field.
	ErrInvalidConfig = errors.New("invalid model config")
	// ErrReservedName: the repository holds a model named like a built-in one.
	ErrReservedName = errors.New("reserved model name")
)

// ConfigError is an ErrInvalidConfig naming the file and the field at fault, e.g.
// "models/iris/v1/model.yaml: preprocess[1].standardize.std: expected 4 numbers, got 3".
type ConfigError struct {
	File string
	// Field is a path into the file such as "preprocess[1].standardize.std"; empty
	// when the fault is the whole file (a YAML syntax error, say).
	Field string
	Msg   string
}

func (e *ConfigError) Error() string {
	s := e.File + ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// Is makes errors.Is(err, ErrInvalidConfig) true for every ConfigError.
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

// errorf is a fault at a field of model.yaml, before the file is known: the same
// error a backend returns, so inFile names the file for both alike.
func errorf(field, format string, args ...any) error {
	return backend.Errorf(field, format, args...)
}

// inFile attaches the file to an error from decoding or building steps.
func inFile(file string, err error) error {
	var se *step.ConfigError
	var be *backend.FieldError
	var ge *graph.SpecError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ge):
		return &ConfigError{File: file, Field: ge.Path, Msg: strings.TrimPrefix(ge.Error(), ge.Path+": ")}
	case errors.As(err, &se):
		return &ConfigError{File: file, Field: se.Field, Msg: se.Msg}
	case errors.As(err, &be):
		return &ConfigError{File: file, Field: be.Field, Msg: be.Msg}
	}
	return &ConfigError{File: file, Msg: err.Error()}
}
