// Package pipeline runs a batch of inputs through preprocess steps, a model and
// postprocess steps. A batch is one call through every stage, never N calls, so runtimes
// that vectorise (ONNX Runtime) see the whole batch at once.
package pipeline
