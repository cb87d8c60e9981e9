package xgboost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The model file, as doc/model.schema describes it and XGBoost 1.7 to 3.x write it.
// Only what prediction needs is read; the rest (loss_changes, sum_hessian, the
// objective's training parameters) is left.

type modelFile struct {
	Version []int    `json:"version"`
	Learner *learner `json:"learner"`
	format  string   // "json" or "ubj": what the file was
}

type learner struct {
	FeatureNames      []string          `json:"feature_names"`
	FeatureTypes      []string          `json:"feature_types"`
	GradientBooster   *booster          `json:"gradient_booster"`
	LearnerModelParam learnerModelParam `json:"learner_model_param"`
	Objective         struct {
		Name string `json:"name"`
	} `json:"objective"`
}

type learnerModelParam struct {
	// BaseScore is one value ("5E-1", 1.7 and 2.x) or, from 3.x, a bracketed vector
	// ("[5E-1]", one value per target or class).
	BaseScore  floats  `json:"base_score"`
	NumClass   flexInt `json:"num_class"`
	NumFeature flexInt `json:"num_feature"`
	// NumTarget is 2.x's and 1.7's number of regression targets; absent before.
	NumTarget flexInt `json:"num_target"`
}

// booster is gradient_booster: gbtree and gblinear have a model, dart a gbtree and
// a weight per tree.
type booster struct {
	Name       string          `json:"name"`
	Model      json.RawMessage `json:"model"`
	GBTree     *booster        `json:"gbtree"`
	WeightDrop []float64       `json:"weight_drop"`
}

type treeModel struct {
	Param struct {
		NumTrees        flexInt `json:"num_trees"`
		NumParallelTree flexInt `json:"num_parallel_tree"`
		SizeLeafVector  flexInt `json:"size_leaf_vector"`
	} `json:"gbtree_model_param"`
	Trees    []tree `json:"trees"`
	TreeInfo []int  `json:"tree_info"`
}

type tree struct {
	Param struct {
		NumNodes       flexInt `json:"num_nodes"`
		NumFeature     flexInt `json:"num_feature"`
		SizeLeafVector flexInt `json:"size_leaf_vector"`
	} `json:"tree_param"`
	LeftChildren    []int32   `json:"left_children"`
	RightChildren   []int32   `json:"right_children"`
	SplitIndices    []int64   `json:"split_indices"`
	SplitConditions []float64 `json:"split_conditions"`
	DefaultLeft     []flexInt `json:"default_left"`
	SplitType       []int     `json:"split_type"`
	CategoriesNodes []int     `json:"categories_nodes"`
}

type linearModel struct {
	Weights []float64 `json:"weights"`
}

// flexInt is an integer written as a number, a string ("15": tree_param and
// learner_model_param values are strings) or a boolean (default_left before 1.6).
type flexInt struct {
	V   int64
	Set bool
}

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	switch s {
	case "true":
		*f = flexInt{1, true}
		return nil
	case "false":
		*f = flexInt{0, true}
		return nil
	case "null":
		return nil
	}
	s = strings.Trim(s, `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// "1E0" and 1.0 are integers too.
		fl, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || fl != float64(int64(fl)) {
			return fmt.Errorf("%s is not an integer", b)
		}
		v = int64(fl)
	}
	*f = flexInt{v, true}
	return nil
}

// floats is base_score: a number, a string holding one ("5E-1") or a bracketed
// list of them ("[5E-1]", "[1E-1,2E-1]"), or a JSON array.
type floats []float64

func (f *floats) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(strings.TrimSpace(s))
	}
	s := string(b)
	if strings.HasPrefix(s, "[") {
		if !strings.HasSuffix(s, "]") {
			return fmt.Errorf("%q is not a list of numbers", s)
		}
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	var out floats
	if s != "" {
		for _, part := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", part)
			}
			out = append(out, v)
		}
	}
	*f = out
	return nil
}

// format says which of XGBoost's formats data is in: "json", "ubj", or "" for
// neither, with why.
func format(data []byte) (string, string) {
	b := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(b) == 0:
		return "", "the file is empty"
	case b[0] == '{' && len(b) > 1:
		rest := bytes.TrimLeft(b[1:], " \t\r\n")
		if len(rest) > 0 && (rest[0] == '"' || rest[0] == '}') {
			return "json", ""
		}
		if len(rest) > 0 && bytes.IndexByte([]byte("iUIlLN$#}"), rest[0]) >= 0 {
			return "ubj", ""
		}
	case bytes.HasPrefix(data, []byte("binf")):
		return "", "it is in XGBoost's legacy binary format"
	}
	return "", "it is neither JSON nor UBJSON (XGBoost's legacy binary format, or not a model)"
}

// parse reads a model file in either format.
func parse(data []byte) (*modelFile, error) {
	kind, why := format(data)
	if kind == "" {
		return nil, fmt.Errorf("%w: %s; XGBoost 1.0 or later loads it: re-save it with booster.save_model(\"model.json\") (or \"model.ubj\")", ErrUnsupportedModel, why)
	}
	if kind == "ubj" {
		var err error
		if data, err = ubjsonToJSON(data); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidModel, err)
		}
	}
	f := modelFile{format: kind}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidModel, err)
	}
	if f.Learner == nil || f.Learner.GradientBooster == nil {
		return nil, fmt.Errorf("%w: no learner.gradient_booster: not an XGBoost model file", ErrInvalidModel)
	}
	return &f, nil
}
