package serve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// ErrInvalidTensor: a tensor of an Infer request does not fit what the model declares.
// It is an input error (pipeline.ErrInvalidInput), so callers answer it as the client's
// fault; a *TensorError says what is wrong.
var ErrInvalidTensor = fmt.Errorf("%w: tensor does not fit the model", pipeline.ErrInvalidInput)

// ErrTooManyRows: an Infer request's batch dimension is over its MaxRows.
var ErrTooManyRows = errors.New("too many rows")

// TensorProblem says what is wrong with a tensor of an Infer request.
type TensorProblem int

// The ways a request's tensors can miss the model's declaration.
const (
	UnknownInput TensorProblem = iota + 1
	MissingInput
	DuplicateInput
	WrongDType
	WrongShape
	EmptyBatch
	UnknownOutput
	BatchMismatch
)

// TensorError describes a request tensor that does not fit the model, with both sides
// of the mismatch so that a protocol layer can word it in its own type names.
type TensorError struct {
	Problem TensorProblem
	// Name is the input or output at fault.
	Name string
	// DType and Shape are what the request sent; WantDType and WantShape what the model
	// declares (-1: any size).
	DType, WantDType tensor.DType
	Shape, WantShape []int64
	// Known are the model's input names (or output names, for UnknownOutput).
	Known []string
}

func (e *TensorError) Error() string {
	switch e.Problem {
	case UnknownInput:
		return fmt.Sprintf("the model has no input %q; its inputs are %s", e.Name, strings.Join(e.Known, ", "))
	case MissingInput:
		return fmt.Sprintf("input %q is missing; the model takes %s", e.Name, strings.Join(e.Known, ", "))
	case DuplicateInput:
		return fmt.Sprintf("input %q is sent twice", e.Name)
	case WrongDType:
		return fmt.Sprintf("input %q is %s; the model takes %s", e.Name, e.DType, e.WantDType)
	case WrongShape:
		return fmt.Sprintf("input %q has shape %s; the model takes %s (-1: any size, the batch dimension first)", e.Name, tensor.FormatShape(e.Shape), tensor.FormatShape(e.WantShape))
	case EmptyBatch:
		return fmt.Sprintf("input %q has shape %s: its batch dimension must be at least 1", e.Name, tensor.FormatShape(e.Shape))
	case UnknownOutput:
		return fmt.Sprintf("the model has no output %q; its outputs are %s", e.Name, strings.Join(e.Known, ", "))
	case BatchMismatch:
		return fmt.Sprintf("input %q has a batch dimension of %d; the other inputs have %d", e.Name, e.Shape[0], e.WantShape[0])
	}
	return fmt.Sprintf("input %q does not fit the model", e.Name)
}

func (e *TensorError) Unwrap() error { return ErrInvalidTensor }
