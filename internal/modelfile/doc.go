// Package modelfile reads what a model file declares, without the runtime that
// serves it: an ONNX file's graph inputs and outputs (names, element types, shapes),
// or an XGBoost file's (JSON or UBJ) features, objective and classes. `inferctl model init`
// writes a version's model.yaml from it, so the client needs neither ONNX Runtime
// (cgo) nor an XGBoost build.
package modelfile
