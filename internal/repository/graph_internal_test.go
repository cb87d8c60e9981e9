package repository

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// TestStepError: a member's failure reaches the graph's callers as the graph's own
// kind of error, naming the step, and never with the member's sentinels (the
// member's model not found is not the graph's).
func TestStepError(t *testing.T) {
	step := func(err error) error {
		return fmt.Errorf("run: %w", &graph.StepError{Step: "large", Model: "iris", Version: "v2", Err: err})
	}
	tests := []struct {
		name    string
		err     error
		is      error
		notIs   []error
		message string
	}{
		{"the member refuses a value", step(pipeline.AtItem(3, pipeline.Invalid("[1]", "must be positive"))),
			pipeline.ErrInvalidInput, nil, `graph step "large" (model iris) refused it: must be positive`},
		{"the member's model is gone", step(fmt.Errorf("%w: no model named \"iris\"", registry.ErrModelNotFound)),
			registry.ErrUnavailable, []error{registry.ErrModelNotFound}, `graph step "large"`},
		{"the member is loading", step(registry.ErrLoading), registry.ErrUnavailable, []error{registry.ErrLoading}, `graph step "large"`},
		{"a tensor the member does not take", step(&registry.TensorError{Problem: registry.WrongDType, Name: "input"}),
			pipeline.ErrExecution, []error{pipeline.ErrInvalidInput}, `graph step "large"`},
		{"the member's runtime fails", step(fmt.Errorf("%w: onnx: boom", pipeline.ErrExecution)), pipeline.ErrExecution, nil, "boom"},
		{"the request's deadline", step(context.DeadlineExceeded), context.DeadlineExceeded, nil, `graph step "large"`},
		{"a request unlike the graph's inputs", fmt.Errorf("%w: input \"input\" is float64", graph.ErrInvalidInput), pipeline.ErrInvalidInput, nil, `input "input" is float64`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := stepError(tc.err)
			if !errors.Is(got, tc.is) {
				t.Errorf("%v is not %v", got, tc.is)
			}
			for _, not := range tc.notIs {
				if errors.Is(got, not) {
					t.Errorf("%v is still the member's %v", got, not)
				}
			}
			if !strings.Contains(got.Error(), tc.message) {
				t.Errorf("%q does not say %q", got, tc.message)
			}
		})
	}
	var ie *pipeline.InputError
	if err := stepError(step(pipeline.AtItem(3, pipeline.Invalid("[1]", "x")))); !errors.As(err, &ie) || ie.Item != 3 || ie.Path != "[1]" {
		t.Errorf("the refused row keeps its index and path: %#v", err)
	}
}
