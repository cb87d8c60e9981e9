package oip

import (
	"errors"
	"fmt"

	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/serve"
	"github.com/inferd/inferd/internal/tensor"
)

// Refusal words a request's fault in the protocol's terms (its datatype names), as
// REST's /v2 and gRPC refuse it alike; any other error is returned as it is.
func Refusal(err error) error {
	if errors.Is(err, serve.ErrTooManyRows) {
		return &problem.Error{Kind: problem.TooLarge, Code: problem.CodePayloadTooLarge, Detail: err.Error() + " (MAX_BATCH_ITEMS); split the batch"}
	}
	var big *SizeError
	if errors.As(err, &big) {
		return problem.ResponseTooLarge(int64(big.AtLeast), int64(big.MaxBytes),
			"ask for fewer rows or outputs, or for binary data (\"parameters\":{\"binary_data_output\":true}), which takes a fraction of JSON's bytes")
	}
	var oe *Error
	if errors.As(err, &oe) {
		code := problem.CodeInvalidInput
		if oe.Malformed {
			code = problem.CodeInvalidRequest // as a malformed body of /predict is
		}
		return &problem.Error{Kind: problem.Invalid, Code: code, Detail: oe.Msg}
	}
	var te *serve.TensorError
	if !errors.As(err, &te) {
		return err
	}
	detail := te.Error()
	switch te.Problem {
	case serve.WrongDType:
		detail = fmt.Sprintf("input %q is %s; the model takes %s", te.Name, protocolName(te.DType), protocolName(te.WantDType))
	case serve.WrongShape:
		detail = fmt.Sprintf("input %q has shape %s; the model takes %s (-1: any size; the batch dimension first)", te.Name, tensor.FormatShape(te.Shape), tensor.FormatShape(te.WantShape))
	}
	return &problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidInput, Detail: detail}
}

func protocolName(d tensor.DType) string {
	if n := Datatype(d); n != "" {
		return n
	}
	return string(d)
}
