package step

import (
	"errors"
	"fmt"
)

// ErrConfig marks a step configuration that cannot work: an unknown step, a bad
// parameter, or steps that do not fit the model.
var ErrConfig = errors.New("invalid step configuration")

// ConfigError is an ErrConfig that names the config field at fault, such as
// "preprocess[1].standardize.std".
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Is makes errors.Is(err, ErrConfig) true for every ConfigError.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

func bad(field, format string, args ...any) *ConfigError {
	return &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)}
}
