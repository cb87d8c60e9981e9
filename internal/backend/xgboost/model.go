package xgboost

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// The tensors a model takes and answers.
const (
	InputName         = "input"
	ProbabilitiesName = "probabilities"
	PredictionsName   = "predictions"
)

// predictor adds one row's model sums to its margins: a forest or a linear model.
type predictor interface {
	predict(row, margins []float32)
}

// Model is one XGBoost model, evaluated in Go. Predict is safe for concurrent use:
// nothing is mutated after Open.
type Model struct {
	label     string // the last parts of the artifact's path, for errors clients see
	size      int64
	nfeat     int
	features  []string
	objective string
	obj       objective
	ngroup    int
	base      []float32 // each output's starting margin: base_score as a margin
	pred      predictor
	trees     int
	outputs   []pipeline.Tensor // batch dimension first
	platform  string            // "xgboost_json" or "xgboost_ubj"
}

// open reads a model file's bytes; name is the artifact's path, for errors.
func open(name string, data []byte) (*Model, error) {
	f, err := parse(data)
	if err != nil {
		return nil, err
	}
	l := f.Learner
	obj, ok := objectives[l.Objective.Name]
	if !ok {
		return nil, fmt.Errorf("%w: objective %q is not one the xgboost backend evaluates (%s)", ErrUnsupportedModel, l.Objective.Name, objectiveNames())
	}
	m := &Model{label: label(name), size: int64(len(data)), objective: l.Objective.Name, obj: obj, platform: "xgboost_" + f.format}
	p := l.LearnerModelParam
	m.nfeat = int(p.NumFeature.V)
	if m.nfeat <= 0 || m.nfeat > 1<<24 {
		return nil, fmt.Errorf("%w: learner_model_param.num_feature is %d", ErrInvalidModel, p.NumFeature.V)
	}
	if p.NumClass.V < 0 || p.NumClass.V > 1<<16 || p.NumTarget.V < 0 || p.NumTarget.V > 1<<16 {
		return nil, fmt.Errorf("%w: num_class %d, num_target %d", ErrInvalidModel, p.NumClass.V, p.NumTarget.V)
	}
	m.ngroup = int(max(1, p.NumClass.V, p.NumTarget.V))
	if obj.out == softmax && p.NumClass.V < 1 {
		return nil, fmt.Errorf("%w: %s with num_class %d", ErrInvalidModel, m.objective, p.NumClass.V)
	}
	if len(l.FeatureNames) > 0 {
		if len(l.FeatureNames) != m.nfeat {
			return nil, fmt.Errorf("%w: %d feature_names for %d features", ErrInvalidModel, len(l.FeatureNames), m.nfeat)
		}
		m.features = l.FeatureNames
	}
	for i, t := range l.FeatureTypes {
		if t == "c" {
			return nil, fmt.Errorf("%w: feature %d is categorical (feature_types \"c\"): categorical splits are not supported; one-hot encode the feature, or train without enable_categorical", ErrUnsupportedModel, i)
		}
	}
	if err := m.baseMargins(p.BaseScore); err != nil {
		return nil, err
	}
	gb := l.GradientBooster
	switch gb.Name {
	case "gbtree":
		fo, err := newForest(gb.Model, nil, m.ngroup, m.nfeat)
		if err != nil {
			return nil, err
		}
		m.pred, m.trees = fo, len(fo.roots)
	case "dart":
		if gb.GBTree == nil {
			return nil, fmt.Errorf("%w: dart without its gbtree", ErrInvalidModel)
		}
		if gb.WeightDrop == nil {
			gb.WeightDrop = []float64{}
		}
		fo, err := newForest(gb.GBTree.Model, gb.WeightDrop, m.ngroup, m.nfeat)
		if err != nil {
			return nil, err
		}
		m.pred, m.trees = fo, len(fo.roots)
	case "gblinear":
		li, err := newLinear(gb.Model, m.ngroup, m.nfeat)
		if err != nil {
			return nil, err
		}
		m.pred = li
	default:
		return nil, fmt.Errorf("%w: booster %q; the xgboost backend evaluates gbtree, dart and gblinear", ErrUnsupportedModel, gb.Name)
	}
	m.describe()
	return m, nil
}

// baseMargins turns base_score into each output's starting margin, as the
// objective's ProbToMargin does: one value for every output, or from 3.x one each.
func (m *Model) baseMargins(bs floats) error {
	if len(bs) == 0 {
		bs = floats{0.5} // XGBoost's default
	}
	if len(bs) != 1 && len(bs) != m.ngroup {
		return fmt.Errorf("%w: base_score has %d values for %d outputs", ErrInvalidModel, len(bs), m.ngroup)
	}
	m.base = make([]float32, m.ngroup)
	for g := range m.base {
		v := bs[min(g, len(bs)-1)]
		mv := m.obj.margin(v)
		if math.IsNaN(mv) || math.IsInf(mv, 0) {
			return fmt.Errorf("%w: base_score %g has no margin for %s", ErrInvalidModel, v, m.objective)
		}
		m.base[g] = float32(mv)
	}
	return nil
}

// describe declares the outputs: what predict_proba answers for a classifier, what
// predict answers for the rest, one value per row for a single output.
func (m *Model) describe() {
	switch {
	case m.obj.classifier && m.ngroup == 1:
		m.outputs = []pipeline.Tensor{{Name: ProbabilitiesName, DType: string(tensor.Float32), Shape: []int64{-1, 2}}}
	case m.obj.classifier:
		m.outputs = []pipeline.Tensor{{Name: ProbabilitiesName, DType: string(tensor.Float32), Shape: []int64{-1, int64(m.ngroup)}}}
		if m.obj.argmax {
			m.outputs = append(m.outputs, pipeline.Tensor{Name: PredictionsName, DType: string(tensor.Float32), Shape: []int64{-1}})
		}
	case m.ngroup == 1:
		m.outputs = []pipeline.Tensor{{Name: PredictionsName, DType: string(tensor.Float32), Shape: []int64{-1}}}
	default:
		m.outputs = []pipeline.Tensor{{Name: PredictionsName, DType: string(tensor.Float32), Shape: []int64{-1, int64(m.ngroup)}}}
	}
}

// Platform names the model's kind as Triton's FIL backend names XGBoost's formats
// ("xgboost_json", "xgboost_ubj"), and its runtime, "xgboost".
func (m *Model) Platform() (platform, runtime string) { return m.platform, "xgboost" }

// Size is the size of the model file in bytes.
func (m *Model) Size() int64 { return m.size }

// Features are the file's feature names, in input order; nil when it has none.
func (m *Model) Features() []string { return slices.Clone(m.features) }

// Objective is the model's XGBoost objective, such as "binary:logistic".
func (m *Model) Objective() string { return m.objective }

// Inputs is the one input, FP32 [-1, features].
func (m *Model) Inputs() []pipeline.Tensor {
	return []pipeline.Tensor{{Name: InputName, DType: string(tensor.Float32), Shape: []int64{-1, int64(m.nfeat)}}}
}

// Outputs are "probabilities" for a classifier, "predictions" for the rest, and
// both for multi:softmax.
func (m *Model) Outputs() []pipeline.Tensor {
	out := make([]pipeline.Tensor, len(m.outputs))
	for i, o := range m.outputs {
		out[i] = pipeline.Tensor{Name: o.Name, DType: o.DType, Shape: slices.Clone(o.Shape)}
	}
	return out
}

// ItemInputs is Inputs without the batch dimension.
func (m *Model) ItemInputs() []pipeline.Tensor { return unbatch(m.Inputs()) }

// ItemOutputs is Outputs without the batch dimension.
func (m *Model) ItemOutputs() []pipeline.Tensor { return unbatch(m.Outputs()) }

func unbatch(ts []pipeline.Tensor) []pipeline.Tensor {
	for i := range ts {
		ts[i].Shape = ts[i].Shape[1:]
	}
	return ts
}

// Close has nothing to release.
func (m *Model) Close() error { return nil }

// parallelWork is the tree walks a batch must take before its rows are shared among
// the CPUs: below it, starting goroutines costs more than it saves.
const parallelWork = 1 << 14

// Predict evaluates a batch of *tensor.Tensor rows, FP32 [features] each, and
// returns a tensor.Map per row.
func (m *Model) Predict(ctx context.Context, batch []any) ([]any, error) {
	n := len(batch)
	x := make([]float32, n*m.nfeat)
	for i, v := range batch {
		t, ok := v.(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("%w: model %s: item %d is a %T, not a tensor; the preprocess steps must end in one", pipeline.ErrExecution, m.label, i, v)
		}
		if t.DType != tensor.Float32 || len(t.Shape) != 1 || t.Shape[0] != int64(m.nfeat) || t.Len() != m.nfeat {
			return nil, fmt.Errorf("%w: model %s: item %d is %s %s; input %q takes %s [%d]", pipeline.ErrExecution, m.label, i, t.DType, tensor.FormatShape(t.Shape), InputName, tensor.Float32, m.nfeat)
		}
		row := x[i*m.nfeat : (i+1)*m.nfeat]
		if t.F32 != nil {
			copy(row, t.F32)
		} else {
			for j, f := range t.Float {
				row[j] = float32(f)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	margins := make([]float32, n*m.ngroup)
	m.eval(x, margins, n)
	return m.results(margins, n), nil
}

// eval computes n rows' transformed outputs into margins, sharing the rows among
// the CPUs when the batch is large enough to pay for it.
func (m *Model) eval(x, margins []float32, n int) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers < 2 || n*max(m.trees, 1) < parallelWork {
		m.rows(x, margins, 0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Go(func() { m.rows(x, margins, lo, hi) })
	}
	wg.Wait()
}

// rows evaluates rows lo to hi, row by row.
func (m *Model) rows(x, margins []float32, lo, hi int) {
	for i := lo; i < hi; i++ {
		out := margins[i*m.ngroup : (i+1)*m.ngroup]
		copy(out, m.base)
		m.pred.predict(x[i*m.nfeat:(i+1)*m.nfeat], out)
		m.obj.out.apply(out)
	}
}

// results cuts the outputs into one tensor.Map per row. The values of every row sit
// in one slice and the tensors in another, so a batch costs a few allocations and
// a map per row.
func (m *Model) results(margins []float32, n int) []any {
	res := make([]any, n)
	var (
		shape  []int64 // capped, so that appending to a row's shape copies it
		values = margins
		width  = m.ngroup
	)
	switch {
	case m.obj.classifier && m.ngroup == 1:
		width = 2
		values = make([]float32, 2*n)
		for i, p := range margins {
			values[2*i], values[2*i+1] = 1-p, p
		}
		shape = []int64{2}
	case m.ngroup > 1:
		shape = []int64{int64(m.ngroup)}
	default:
		shape = []int64{}
	}
	shape = shape[:len(shape):len(shape)]
	name := m.outputs[0].Name
	ts := make([]tensor.Tensor, n)
	var classes []float32
	var cts []tensor.Tensor
	if m.obj.argmax {
		classes = make([]float32, n)
		cts = make([]tensor.Tensor, n)
	}
	for i := range res {
		lo, hi := i*width, (i+1)*width
		ts[i] = tensor.Tensor{DType: tensor.Float32, Shape: shape, F32: values[lo:hi:hi]}
		out := tensor.Map{name: &ts[i]}
		if m.obj.argmax {
			classes[i] = float32(argmax(values[lo:hi]))
			cts[i] = tensor.Tensor{DType: tensor.Float32, Shape: []int64{}, F32: classes[i : i+1 : i+1]}
			out[PredictionsName] = &cts[i]
		}
		res[i] = out
	}
	return res
}

// argmax is the first index of the largest value, as XGBoost's FindMaxIndex.
func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// label keeps the model, version and file parts of an artifact path.
func label(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	if len(parts) > 3 {
		parts = parts[len(parts)-3:]
	}
	return strings.Join(parts, "/")
}
