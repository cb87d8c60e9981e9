package tensor

// Named is a named tensor whose Shape includes the batch dimension: a request's input
// or a response's output, as the registry and the protocols pass them.
type Named struct {
	Name   string
	Tensor *Tensor
}
