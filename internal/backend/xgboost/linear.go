package xgboost

import (
	"encoding/json"
	"fmt"
)

// linear is a gblinear model: a weight per feature and output, and a bias per
// output.
type linear struct {
	w      []float32 // feature f, output g at f*ngroup+g, as XGBoost lays them out
	bias   []float32
	ngroup int
}

func newLinear(raw json.RawMessage, ngroup, nfeat int) (*linear, error) {
	var lm linearModel
	if err := json.Unmarshal(raw, &lm); err != nil {
		return nil, fmt.Errorf("%w: gradient_booster.model: %v", ErrInvalidModel, err)
	}
	if want := (nfeat + 1) * ngroup; len(lm.Weights) != want {
		return nil, fmt.Errorf("%w: gblinear has %d weights; %d features and %d outputs need %d", ErrInvalidModel, len(lm.Weights), nfeat, ngroup, want)
	}
	l := &linear{w: make([]float32, nfeat*ngroup), bias: make([]float32, ngroup), ngroup: ngroup}
	for i := range l.w {
		l.w[i] = float32(lm.Weights[i])
	}
	for g := range l.bias {
		l.bias[g] = float32(lm.Weights[nfeat*ngroup+g])
	}
	return l, nil
}

// predict adds the model's sum for one row to its margins; a missing value (NaN)
// is left out, as XGBoost leaves it out of its sparse rows.
func (l *linear) predict(row []float32, margins []float32) {
	for g := range margins {
		s := l.bias[g] + margins[g]
		for f, x := range row {
			if x == x {
				s += x * l.w[f*l.ngroup+g]
			}
		}
		margins[g] = s
	}
}
