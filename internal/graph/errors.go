package graph

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidGraph: a graph's declaration is malformed or does not type-check
	// against its members; the error is a *SpecError naming the field.
	ErrInvalidGraph = errors.New("invalid graph")
	// ErrInvalidInput: a request's tensors do not match the graph's inputs.
	ErrInvalidInput = errors.New("invalid graph input")
	// ErrStepFailed: a member's call failed and its step's policy is fail; the error
	// is a *StepError that also wraps the member's error.
	ErrStepFailed = errors.New("graph step failed")
	// ErrExecution: a member answered outside its declared tensors, or a join met
	// tensors it cannot combine: a fault of the graph's run, not of the request.
	ErrExecution = errors.New("graph execution failed")
)

// SpecError is a load-time fault, with the path of the field in model.yaml
// ("graph.steps[1].inputs.input").
type SpecError struct {
	Path string
	Msg  string
	// Err is what Members answered, when the fault is a member it could not find.
	Err error
}

func (e *SpecError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Path, e.Msg, e.Err)
	}
	return e.Path + ": " + e.Msg
}

// Is makes every SpecError an ErrInvalidGraph.
func (e *SpecError) Is(target error) bool { return target == ErrInvalidGraph }

func (e *SpecError) Unwrap() error { return e.Err }

func specErrorf(path, format string, args ...any) error {
	return &SpecError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// StepError is a member's failure under the fail policy. It is both ErrStepFailed
// and the member's error, so that a caller maps the member's own code (a registry
// ErrUnavailable, an invalid input) while the message names the step.
type StepError struct {
	Step, Model, Version string
	Err                  error
}

func (e *StepError) Error() string {
	v := e.Version
	if v == "" {
		v = "routed version"
	}
	return fmt.Sprintf("graph step %q (model %s, %s): %v", e.Step, e.Model, v, e.Err)
}

func (e *StepError) Unwrap() []error { return []error{ErrStepFailed, e.Err} }
