package modelfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
)

// ErrNotModel is the error of a file that is neither an ONNX model nor an XGBoost
// model.
var ErrNotModel = errors.New("not a model file")

// ErrUnsupported is the error of a model file of a known kind that is not served
// (XGBoost's legacy binary format, or an objective or split the xgboost backend
// does not evaluate).
var ErrUnsupported = errors.New("unsupported model file")

// Model is what a model file declares.
type Model struct {
	// Backend is the model.yaml backend that serves the file: onnx or xgboost.
	Backend string
	// Inputs and Outputs are the model's tensors, batch dimension first; a dimension
	// the file leaves open (ONNX's dim_param, or none at all) is -1.
	Inputs, Outputs []pipeline.Tensor
	// Features are an XGBoost model's feature names, when the file has them.
	Features []string
	// Objective is an XGBoost model's objective (binary:logistic, ...).
	Objective string
	// Classes is an XGBoost classifier's class count; 0 for a regressor.
	Classes int
}

// Read reads the model file at path: an ONNX protobuf, or an XGBoost model in JSON
// or UBJSON.
func Read(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".json" || ext == ".ubj" || bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")):
		// An ONNX protobuf starts with a field tag, never '{'; both XGBoost formats do.
		return ReadXGBoost(path, data)
	case ext == ".model" || ext == ".bin" || ext == ".deprecated":
		if _, err := ReadONNX(data); err != nil {
			return nil, fmt.Errorf("%w: %s is not an ONNX model, and XGBoost's legacy binary format is not served; load it in XGBoost and save it as JSON (booster.save_model(\"model.json\"))", ErrUnsupported, path)
		}
	}
	m, err := ReadONNX(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
