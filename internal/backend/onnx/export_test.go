package onnx

// WarmupModel exposes warmupModel to the external test package.
func WarmupModel() []byte { return warmupModel }
