// Package backend is the seam between a model repository and the runtimes that run
// its models. A runtime is a Backend named by model.yaml's backend field; its
// implementations live in subpackages (echo, onnx), and internal/app hands the
// repository a Catalogue of them, so a new runtime is one package and one line there.
package backend
