package modelfile

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
)

// xgbModel is the little of XGBoost's JSON model schema (doc/model.schema) read
// here; the trees are not. Counts are strings in the schema ("num_feature": "4").
type xgbModel struct {
	Learner *struct {
		FeatureNames []string `json:"feature_names"`
		Param        struct {
			NumFeature string `json:"num_feature"`
			NumClass   string `json:"num_class"`
		} `json:"learner_model_param"`
		Objective struct {
			Name string `json:"name"`
		} `json:"objective"`
	} `json:"learner"`
}

// The tensors the xgboost backend declares: one input of every feature, and what
// predict_proba (classifiers) or predict (regressors) returns.
const (
	xgbInput         = "input"
	xgbProbabilities = "probabilities"
	xgbPredictions   = "predictions"
)

// ReadXGBoost reads an XGBoost JSON model's features, objective and classes.
func ReadXGBoost(data []byte) (*Model, error) {
	var x xgbModel
	if err := json.Unmarshal(data, &x); err != nil || x.Learner == nil {
		return nil, fmt.Errorf("%w: not an XGBoost model (no learner object)", ErrNotModel)
	}
	l := x.Learner
	n, err := strconv.Atoi(l.Param.NumFeature)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("%w: XGBoost model: learner_model_param.num_feature is %q, want a positive count", ErrNotModel, l.Param.NumFeature)
	}
	if len(l.FeatureNames) != 0 && len(l.FeatureNames) != n {
		return nil, fmt.Errorf("%w: XGBoost model: %d feature_names for num_feature %d", ErrNotModel, len(l.FeatureNames), n)
	}
	classes := 0
	if l.Param.NumClass != "" {
		if classes, err = strconv.Atoi(l.Param.NumClass); err != nil || classes < 0 {
			return nil, fmt.Errorf("%w: XGBoost model: learner_model_param.num_class is %q, want a count", ErrNotModel, l.Param.NumClass)
		}
	}
	obj := l.Objective.Name
	if obj == "" {
		return nil, fmt.Errorf("%w: XGBoost model: no objective.name", ErrNotModel)
	}
	m := &Model{
		Backend:   "xgboost",
		Inputs:    []pipeline.Tensor{{Name: xgbInput, DType: "float32", Shape: []int64{-1, int64(n)}}},
		Features:  l.FeatureNames,
		Objective: obj,
	}
	switch {
	case strings.HasPrefix(obj, "binary:"):
		m.Classes = 2
	case strings.HasPrefix(obj, "multi:"):
		m.Classes = classes
	}
	if len(m.Features) == 0 {
		m.Features = nil // the schema's [] for a model trained without names
	}
	if m.Classes > 0 {
		m.Outputs = []pipeline.Tensor{{Name: xgbProbabilities, DType: "float32", Shape: []int64{-1, int64(m.Classes)}}}
	} else {
		m.Outputs = []pipeline.Tensor{{Name: xgbPredictions, DType: "float32", Shape: []int64{-1}}}
	}
	return m, nil
}
