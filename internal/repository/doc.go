// Package repository is a registry.Source that reads models from a directory laid
// out like Triton's model repository:
//
//	MODELS_DIR/<name>/routing.yaml          optional routing rule (registry.Rule)
//	MODELS_DIR/<name>/<version>/model.yaml  the version's config
//	MODELS_DIR/<name>/<version>/model.onnx  its artifact
//
// Discovery reads only the YAML, so every version is listed at once, a malformed
// config among them with its error; the artifact is read when the version loads, and
// read again on every reload. docs/models.md describes model.yaml and the steps.
package repository
