package step

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// identity is a model that returns its input, so preprocess results can be read.
type identity struct{}

func (identity) Predict(_ context.Context, b []any) ([]any, error) { return b, nil }
func (identity) Close() error                                      { return nil }

// fixed is a model that returns canned outputs, one per item.
type fixed []tensor.Map

func (f fixed) Predict(_ context.Context, b []any) ([]any, error) {
	out := make([]any, len(b))
	for i := range b {
		out[i] = f[i]
	}
	return out, nil
}
func (fixed) Close() error { return nil }

// code is the problem code the HTTP layer gives an error.
func code(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, pipeline.ErrInvalidInput):
		return "invalid_input"
	case errors.Is(err, pipeline.ErrExecution):
		return "execution_error"
	case errors.Is(err, ErrConfig):
		return "config"
	}
	return "other: " + err.Error()
}

// join writes run results as one JSON array for comparison.
func join(out []json.RawMessage) string {
	parts := make([]string, len(out))
	for i, r := range out {
		parts[i] = string(r)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// runPre builds specs for a model with one input and runs items through them.
func runPre(t *testing.T, batch bool, specs []Spec, in pipeline.Tensor, items ...string) (string, error) {
	t.Helper()
	steps, _, err := BuildPre(specs, []pipeline.Tensor{in})
	if err != nil {
		t.Fatalf("BuildPre: %v", err)
	}
	p := &pipeline.Pipeline{Pre: steps, Model: identity{}}
	raw := make([]json.RawMessage, len(items))
	for i, it := range items {
		raw[i] = json.RawMessage(it)
	}
	out, err := p.Run(context.Background(), raw, nil)
	if err != nil {
		return "", worded(err, batch || len(items) != 1)
	}
	return join(out), nil
}

// wordedErr is an input error worded as the HTTP layer words it for a client.
type wordedErr struct {
	error
	msg string
}

func (e wordedErr) Error() string { return e.msg }
func (e wordedErr) Unwrap() error { return e.error }

// worded names the item at fault "data" in a single request, "items[i]" in a batch.
func worded(err error, batch bool) error {
	var ie *pipeline.InputError
	if !errors.As(err, &ie) {
		return err
	}
	root := "data"
	if batch {
		root = fmt.Sprintf("items[%d]", ie.Item)
	}
	return wordedErr{err, ie.In(root)}
}

// runPost builds specs for a model with the given outputs and runs canned outputs
// through them.
func runPost(t *testing.T, specs []Spec, outputs []pipeline.Tensor, items ...tensor.Map) (string, error) {
	t.Helper()
	steps, err := BuildPost(specs, outputs)
	if err != nil {
		t.Fatalf("BuildPost: %v", err)
	}
	p := &pipeline.Pipeline{Model: fixed(items), Post: steps}
	raw := make([]json.RawMessage, len(items))
	for i := range raw {
		raw[i] = json.RawMessage("null")
	}
	out, err := p.Run(context.Background(), raw, nil)
	if err != nil {
		return "", worded(err, len(items) != 1)
	}
	return join(out), nil
}

func f32(shape []int64, v ...float64) *tensor.Tensor {
	return tensor.NewFloat(tensor.Float32, shape, v)
}

func i64(shape []int64, v ...int64) *tensor.Tensor {
	return tensor.NewInt(tensor.Int64, shape, v)
}

func check(t *testing.T, got string, err error, want, wantCode, wantErr string) {
	t.Helper()
	if wantErr != "" || wantCode != "" {
		if err == nil {
			t.Fatalf("got %s, want error %s %q", got, wantCode, wantErr)
		}
		if code(err) != wantCode || err.Error() != wantErr {
			t.Fatalf("error = %s %q\nwant    %s %q", code(err), err.Error(), wantCode, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
