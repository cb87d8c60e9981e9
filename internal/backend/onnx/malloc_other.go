//go:build !(linux && cgo)

package onnx

// tuneMalloc is glibc's; other C libraries keep their own policies.
func tuneMalloc() {}
