package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
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

// overflowModel answers each item with a tensor of the given values, as a model does
// whose arithmetic overflowed on a huge input.
type overflowModel struct{ values []float64 }

func (m overflowModel) Predict(_ context.Context, batch []any) ([]any, error) {
	out := make([]any, len(batch))
	for i := range batch {
		out[i] = tensor.NewFloat(tensor.Float32, []int64{int64(len(m.values))}, m.values)
	}
	return out, nil
}
func (overflowModel) Close() error { return nil }

// AtItem sets the item of an input error, whatever wraps it, and leaves other errors.
func TestAtItem(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"input error", pipeline.Invalid(".features[2]", "expected a number, got null"), "items[3].features[2]: expected a number, got null"},
		{"wrapped", fmt.Errorf("step: %w", pipeline.Invalid("", "bad")), "items[3]: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ie *pipeline.InputError
			if err := pipeline.AtItem(3, tt.err); !errors.As(err, &ie) || ie.Item != 3 || ie.In("items[3]") != tt.want {
				t.Errorf("AtItem = %v, want %s", err, tt.want)
			}
			if got := ie.Error(); !strings.HasPrefix(got, "item 3") {
				t.Errorf("Error = %q, want the item by its index", got)
			}
		})
	}
	other := errors.New("runtime fault")
	if got := pipeline.AtItem(1, other); got != other {
		t.Errorf("AtItem changed another error: %v", got)
	}
}

// A result that is NaN or infinite (a finite input too large for the model, found by
// the contract fuzzer with 1.7976931348623157e308) is the input's fault: invalid input
// naming the item, never an execution error.
func TestRunNonFiniteResultIsInvalidInput(t *testing.T) {
	cases := []struct {
		name   string
		values []float64
		batch  bool
		field  string
	}{
		{"infinity, single", []float64{1, math.Inf(1)}, false, "data"},
		{"NaN, batch", []float64{math.NaN()}, true, "items[0]"},
		{"minus infinity, batch", []float64{math.Inf(-1)}, true, "items[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &pipeline.Pipeline{Model: overflowModel{tc.values}}
			_, err := p.Run(context.Background(), []json.RawMessage{json.RawMessage(`[1e308]`)}, nil)
			var ie *pipeline.InputError
			if !errors.As(err, &ie) || errors.Is(err, pipeline.ErrExecution) || ie.Item != 0 || ie.Path != "" {
				t.Fatalf("Run = %v, want invalid input at item 0", err)
			}
			root := "data"
			if tc.batch {
				root = "items[0]"
			}
			if got := ie.In(root); !strings.HasPrefix(got, tc.field+": ") {
				t.Errorf("worded %q, want it to start with %s", got, tc.field)
			}
			if !strings.Contains(ie.Msg, "not a finite number") {
				t.Errorf("message %q does not say what is wrong", ie.Msg)
			}
		})
	}
	// A finite result still encodes.
	p := &pipeline.Pipeline{Model: overflowModel{[]float64{0.5}}}
	out, err := p.Run(context.Background(), []json.RawMessage{json.RawMessage(`1`)}, nil)
	if err != nil || string(out[0]) != "[0.5]" {
		t.Fatalf("Run = %s, %v; want [0.5]", out, err)
	}
}
