package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
)

type panicModel struct{}

func (panicModel) Predict(context.Context, []any) ([]any, error) { panic("index out of range") }
func (panicModel) Close() error                                  { return nil }

// A panic is an execution error whose message, which clients and job records see,
// holds the panic's value but not the stack, which is kept for the log.
func TestRunRecoversPanic(t *testing.T) {
	p := &pipeline.Pipeline{Model: panicModel{}}
	_, err := p.Run(context.Background(), []json.RawMessage{json.RawMessage(`1`)}, nil)
	if !errors.Is(err, pipeline.ErrExecution) || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("Run = %v, want an execution error naming the panic", err)
	}
	if strings.Contains(err.Error(), "goroutine") || strings.Contains(err.Error(), ".go:") {
		t.Errorf("the message holds the stack: %q", err)
	}
	var pe *pipeline.PanicError
	if !errors.As(err, &pe) || len(pe.Stack) == 0 {
		t.Errorf("Run = %#v, want a PanicError with its stack", err)
	}
}
