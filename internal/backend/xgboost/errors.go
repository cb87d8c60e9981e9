package xgboost

import "errors"

// ErrUnsupportedModel: the file is an XGBoost model, but of a kind this backend
// does not evaluate (a categorical split, vector leaves, an objective it does not
// know, the legacy binary format).
var ErrUnsupportedModel = errors.New("unsupported XGBoost model")

// ErrInvalidModel: the file is not a well-formed XGBoost model.
var ErrInvalidModel = errors.New("invalid XGBoost model")
