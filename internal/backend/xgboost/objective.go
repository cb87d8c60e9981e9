package xgboost

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// transform is how an objective turns margins into what predict answers.
type transform int

const (
	identity transform = iota // the margin as it is
	sigmoid                   // 1 / (1 + e^-margin)
	exponent                  // e^margin
	hinge                     // 1 when the margin is positive, else 0
	softmax                   // per row over the classes
)

// objective is what prediction needs to know of an XGBoost objective.
type objective struct {
	out transform
	// classifier: answers "probabilities" as predict_proba does.
	classifier bool
	// argmax: multi:softmax, whose predict answers the class index.
	argmax bool
	// margin turns base_score, which XGBoost keeps as the objective's output, into a
	// margin, as the objective's ProbToMargin does.
	margin func(float64) float64
}

func logit(p float64) float64 { return -math.Log(1/p - 1) }
func same(v float64) float64  { return v }

// objectives are those the backend evaluates, checked against XGBoost 1.7.4's own
// answers (testdata/answers.json) save five taken from XGBoost's source: reg:linear
// (the old name of reg:squarederror), rank:ndcg and rank:map (predicting as
// rank:pairwise), survival:aft (as survival:cox) and 2.x's reg:quantileerror.
var objectives = map[string]objective{
	"binary:logistic":      {out: sigmoid, classifier: true, margin: logit},
	"binary:logitraw":      {out: identity, margin: same}, // its base_score is a margin already
	"binary:hinge":         {out: hinge, margin: same},
	"reg:logistic":         {out: sigmoid, margin: logit},
	"reg:squarederror":     {out: identity, margin: same},
	"reg:linear":           {out: identity, margin: same},
	"reg:squaredlogerror":  {out: identity, margin: same},
	"reg:pseudohubererror": {out: identity, margin: same},
	"reg:absoluteerror":    {out: identity, margin: same},
	"reg:quantileerror":    {out: identity, margin: same},
	"count:poisson":        {out: exponent, margin: math.Log},
	"reg:gamma":            {out: exponent, margin: math.Log},
	"reg:tweedie":          {out: exponent, margin: math.Log},
	"survival:cox":         {out: exponent, margin: math.Log},
	"survival:aft":         {out: exponent, margin: math.Log},
	"multi:softprob":       {out: softmax, classifier: true, margin: same},
	"multi:softmax":        {out: softmax, classifier: true, argmax: true, margin: same},
	"rank:pairwise":        {out: identity, margin: same},
	"rank:ndcg":            {out: identity, margin: same},
	"rank:map":             {out: identity, margin: same},
}

// objectiveNames lists the objectives for an error message.
func objectiveNames() string {
	names := make([]string, 0, len(objectives))
	for n := range objectives {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(slices.Compact(names), ", ")
}

// apply transforms one row's margins in place.
func (t transform) apply(m []float32) {
	switch t {
	case sigmoid:
		for i, v := range m {
			m[i] = float32(1 / (1 + math.Exp(-float64(v))))
		}
	case exponent:
		for i, v := range m {
			m[i] = float32(math.Exp(float64(v)))
		}
	case hinge:
		for i, v := range m {
			if v > 0 {
				m[i] = 1
			} else {
				m[i] = 0
			}
		}
	case softmax:
		hi := m[0]
		for _, v := range m[1:] {
			hi = max(hi, v)
		}
		var sum float64
		for i, v := range m {
			e := math.Exp(float64(v - hi))
			m[i] = float32(e)
			sum += e
		}
		for i := range m {
			m[i] = float32(float64(m[i]) / sum)
		}
	}
}
