// Package modelfile reads what a model file declares, without the runtime that
// serves it: an ONNX file's graph inputs and outputs (names, element types, shapes),
// read with protowire so the client needs no ONNX Runtime (cgo); an XGBoost file's
// (JSON or UBJSON) features, objective, tensors and classes, read by the xgboost
// backend itself (pure Go), so init and the server cannot disagree on them.
// `inferctl model init` writes a version's model.yaml from it.
package modelfile
