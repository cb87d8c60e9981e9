// Package xgboost is the xgboost backend: XGBoost model files (model.json, or
// UBJSON model.ubj) evaluated natively in Go, without the library, cgo or a
// conversion to ONNX.
//
// A file is read by XGBoost's published model schema (doc/model.schema) and the
// shapes versions 1.7 to 3.x write: its trees are flattened into one contiguous
// array of small nodes, siblings side by side, and a batch is walked row by row
// over it with no allocation per row. Outputs follow the objective: classifiers
// answer "probabilities" as predict_proba does, regressors "predictions" as
// predict does. What the evaluator does not do (categorical splits, vector-leaf
// trees, unknown objectives, XGBoost's legacy binary format) is refused when the
// model loads, with what to do instead.
package xgboost
