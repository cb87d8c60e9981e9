package pipeline

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
)

// ErrInvalidInput marks input that a step or model rejected. The error's message is
// meant for the client: it says which field is wrong and what was expected.
var ErrInvalidInput = errors.New("invalid input")

// ErrExecution marks a failure while running a pipeline that is not the client's fault.
var ErrExecution = errors.New("execution error")

// InputError is an ErrInvalidInput that says which item of a run is at fault and
// where inside it. The pipeline knows items by their index only; how the client named
// them ("data" for a single request, "items[3]" in a batch) is for the caller to word,
// with In.
type InputError struct {
	// Item is the index of the item at fault in its run.
	Item int
	// Path leads from the item to the value at fault: "" for the item itself, or
	// ".features", "[2]", ".features[0]".
	Path string
	// Msg says what was expected and what arrived.
	Msg string
}

// Error words the error for logs, naming the item by its index; clients get In's.
func (e *InputError) Error() string { return "item " + strconv.Itoa(e.Item) + e.Path + ": " + e.Msg }

// In words the error for a client that called the item root: In("data") gives
// "data.features: expected 4 numbers, got 3".
func (e *InputError) In(root string) string { return root + e.Path + ": " + e.Msg }

// Is makes errors.Is(err, ErrInvalidInput) true for every InputError.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

// Invalid returns an InputError at path inside an item, with a formatted message; the
// code that knows which item it is sets that with AtItem.
func Invalid(path, format string, args ...any) error {
	return &InputError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// AtItem returns err with the item of an InputError in it set to i; other errors pass
// unchanged.
func AtItem(i int, err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		c := *ie
		c.Item = i
		return &c
	}
	return err
}

// PanicError is a panic recovered from a stage or a model call: Recover makes it, and
// every recovery below the HTTP layer (a run's stages, a batcher's shared call, a
// tensor call's model stage) goes through Recover, so a panic reads alike wherever it
// happened. Its message, which reaches clients and job records, leaves out the stack;
// Stack is for the server's log.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("%v: panic: %v", ErrExecution, e.Value) }

// Is makes errors.Is(err, ErrExecution) true for every PanicError.
func (e *PanicError) Is(target error) bool { return target == ErrExecution }

// Recover, deferred by a function that returns its error as *err, turns a panic of that
// function into a *PanicError with the panicking goroutine's stack, so that one bad
// request or model cannot take the process down. It must be deferred itself (defer
// Recover(&err)): recover works only in the deferred call.
func Recover(err *error) {
	if v := recover(); v != nil {
		*err = &PanicError{Value: v, Stack: debug.Stack()}
	}
}
