package registry

import "github.com/inferd/inferd/internal/serve"

// The errors of a request's tensors are serve's, named here too.
var (
	ErrInvalidTensor = serve.ErrInvalidTensor
	ErrTooManyRows   = serve.ErrTooManyRows
)

// TensorProblem says what is wrong with a tensor of an Infer request.
type TensorProblem = serve.TensorProblem

// The ways a request's tensors can miss the model's declaration.
const (
	UnknownInput   = serve.UnknownInput
	MissingInput   = serve.MissingInput
	DuplicateInput = serve.DuplicateInput
	WrongDType     = serve.WrongDType
	WrongShape     = serve.WrongShape
	EmptyBatch     = serve.EmptyBatch
	UnknownOutput  = serve.UnknownOutput
	BatchMismatch  = serve.BatchMismatch
)

// TensorError describes a request tensor that does not fit the model.
type TensorError = serve.TensorError
