// Package onnx runs ONNX models with ONNX Runtime (through onnxruntime_go and the
// official shared library, loaded at run time with dlopen).
//
// A Runtime loads the library once per process; each loaded model version gets its
// own Model, one ONNX Runtime session that is safe for concurrent requests. A batch
// runs as one session Run with the items stacked on the batch dimension when the
// model's first input dimension is dynamic (-1), and item by item when it is fixed
// at 1.
//
// The model stage receives one *tensor.Tensor per item from the preprocess steps and
// returns one tensor.Map per item, output name to tensor, for the postprocess steps.
package onnx
