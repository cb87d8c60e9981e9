package pipeline

import (
	"errors"
	"fmt"
)

// ErrInvalidInput marks input that a step or model rejected. The error's message is
// meant for the client: it says which field is wrong and what was expected.
var ErrInvalidInput = errors.New("invalid input")

// ErrExecution marks a failure while running a pipeline that is not the client's fault.
var ErrExecution = errors.New("execution error")

// InputError is an ErrInvalidInput whose message names the field at fault.
type InputError struct {
	// Field is a path into the request such as "data.features" or "items[3]".
	Field string
	// Msg says what was expected and what arrived.
	Msg string
}

func (e *InputError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Is makes errors.Is(err, ErrInvalidInput) true for every InputError.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

// Invalid returns an InputError for field with a formatted message.
func Invalid(field, format string, args ...any) error {
	return &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// PanicError is a panic recovered from a stage. Its message, which reaches clients and
// job records, leaves out the stack; Stack is for the server's log.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("%v: panic: %v", ErrExecution, e.Value) }

// Is makes errors.Is(err, ErrExecution) true for every PanicError.
func (e *PanicError) Is(target error) bool { return target == ErrExecution }
