// Package tensor is the value that flows between the declarative steps and a model
// runtime: one item's numbers with a dtype and a shape that excludes the batch
// dimension. Keeping it runtime-neutral lets the steps stay free of cgo and lets a
// backend other than ONNX Runtime reuse them.
package tensor
