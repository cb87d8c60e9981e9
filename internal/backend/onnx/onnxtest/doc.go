// Package onnxtest helps tests run real ONNX models: it writes small ONNX files from
// Go (so tests need no Python and no committed binaries beyond the example models)
// and provides the process's Runtime, failing under CI when the library is missing.
package onnxtest
