package graph

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
	"go.yaml.in/yaml/v3"
)

// Spec is a graph as model.yaml declares it under graph, before its members are
// consulted.
type Spec struct {
	// Inputs are the tensors a request sends, batch dimension first.
	Inputs []pipeline.Tensor
	// Steps call member models; Joins combine tensors. Steps and joins share one
	// namespace of names.
	Steps []Step
	Joins []Join
	// Outputs map the graph's output names to sources, in the order written.
	Outputs []Binding
}

// Binding is a name and the source of its tensor: "request.<input>",
// "<step>.<output>" or "<join>".
type Binding struct {
	Name, Source string
}

// Policy is what a failed step does.
type Policy string

// The failure policies; "" is PolicyFail.
const (
	PolicyFail     Policy = "fail"
	PolicyFallback Policy = "fallback"
)

// Step is one member call.
type Step struct {
	Name string
	// Model names the member; Version its version, "" for the model's routing.
	Model, Version string
	// Inputs map the member's input names to sources.
	Inputs []Binding
	// When, if set, runs the step only when it holds.
	When *Condition
	// OnError is the failure policy; Fallback the value of each output under
	// PolicyFallback: one row, repeated for every row of the request.
	OnError  Policy
	Fallback map[string]Value
}

// Value is a literal tensor of one row: nested lists of numbers.
type Value struct {
	Shape  []int64
	Values []float64
}

// Stat is the statistic a condition takes of each row of its source.
type Stat string

// The statistics: the largest element, the smallest, and the index of the largest.
const (
	StatMax    Stat = "max"
	StatMin    Stat = "min"
	StatArgmax Stat = "argmax"
)

// Condition holds for a batch when, for at least one row of Source, Stat of that
// row's elements satisfies every comparison given.
type Condition struct {
	Source               string
	Stat                 Stat
	Below, Above, Equals *float64
}

// JoinOp is how a join combines its sources.
type JoinOp string

// The joins.
const (
	// JoinMean is the element-wise mean of float tensors of one shape.
	JoinMean JoinOp = "mean"
	// JoinWeightedMean is the element-wise mean with Weights, normalised by their sum.
	JoinWeightedMean JoinOp = "weighted_mean"
	// JoinConcat joins tensors along Axis (1 or more: rows stay the request's).
	JoinConcat JoinOp = "concat"
	// JoinPick is the first of its sources that is present.
	JoinPick JoinOp = "pick"
)

// Join combines tensors into one, referred to by the join's name.
type Join struct {
	Name    string
	Op      JoinOp
	Sources []string
	Weights []float64
	Axis    int
}

// root is the path of the graph in model.yaml, which every error names.
const root = "graph"

// Step and join names hold no dot, which separates a step from its output in a
// source; model and version names are the repository's (dots allowed); tensor names
// are the model's, anything without spaces.
var (
	namePattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	memberPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	tensorPattern = regexp.MustCompile(`^\S+$`)
)

// Parse reads the value of model.yaml's graph key.
func Parse(data []byte) (*Spec, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, specErrorf(root, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, specErrorf(root, "empty: a graph needs inputs, steps and outputs")
	}
	return Decode(doc.Content[0])
}

// Decode reads the node of model.yaml's graph key, for a caller that has parsed the
// file already.
func Decode(n *yaml.Node) (*Spec, error) {
	m, err := mapping(n, root, "inputs", "steps", "joins", "outputs")
	if err != nil {
		return nil, err
	}
	s := &Spec{}
	if s.Inputs, err = decodeInputs(m["inputs"], root+".inputs"); err != nil {
		return nil, err
	}
	steps, err := sequence(m["steps"], root+".steps")
	if err != nil {
		return nil, err
	}
	for i, sn := range steps {
		st, err := decodeStep(sn, fmt.Sprintf("%s.steps[%d]", root, i))
		if err != nil {
			return nil, err
		}
		s.Steps = append(s.Steps, st)
	}
	joins, err := sequence(m["joins"], root+".joins")
	if err != nil {
		return nil, err
	}
	for i, jn := range joins {
		j, err := decodeJoin(jn, fmt.Sprintf("%s.joins[%d]", root, i))
		if err != nil {
			return nil, err
		}
		s.Joins = append(s.Joins, j)
	}
	if s.Outputs, err = bindings(m["outputs"], root+".outputs"); err != nil {
		return nil, err
	}
	switch {
	case len(s.Inputs) == 0:
		return nil, specErrorf(root+".inputs", "missing: a graph needs at least one input")
	case len(s.Steps) == 0:
		return nil, specErrorf(root+".steps", "missing: a graph needs at least one step")
	case len(s.Outputs) == 0:
		return nil, specErrorf(root+".outputs", "missing: a graph needs at least one output")
	}
	return s, nil
}

func decodeInputs(n *yaml.Node, path string) ([]pipeline.Tensor, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	var out []pipeline.Tensor
	for i, in := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		m, err := mapping(in, p, "name", "dtype", "shape")
		if err != nil {
			return nil, err
		}
		var t pipeline.Tensor
		if t.Name, err = named(m["name"], p+".name", tensorPattern, "a tensor name is not empty and holds no spaces"); err != nil {
			return nil, err
		}
		if t.DType, err = dtype(m["dtype"], p+".dtype"); err != nil {
			return nil, err
		}
		if t.Shape, err = shape(m["shape"], p+".shape"); err != nil {
			return nil, err
		}
		if len(t.Shape) == 0 {
			return nil, specErrorf(p+".shape", "needs the batch dimension first, e.g. [-1, 4]")
		}
		out = append(out, t)
	}
	return out, nil
}

func decodeStep(n *yaml.Node, path string) (Step, error) {
	m, err := mapping(n, path, "name", "model", "version", "inputs", "when", "on_error", "fallback")
	if err != nil {
		return Step{}, err
	}
	var s Step
	if s.Name, err = name(m["name"], path+".name"); err != nil {
		return s, err
	}
	if s.Model, err = member(m["model"], path+".model"); err != nil {
		return s, err
	}
	if m["version"] != nil {
		if s.Version, err = member(m["version"], path+".version"); err != nil {
			return s, err
		}
	}
	if s.Inputs, err = bindings(m["inputs"], path+".inputs"); err != nil {
		return s, err
	}
	if len(s.Inputs) == 0 {
		return s, specErrorf(path+".inputs", "missing: map each of the model's inputs to a source")
	}
	if m["when"] != nil {
		c, err := decodeCondition(m["when"], path+".when")
		if err != nil {
			return s, err
		}
		s.When = &c
	}
	if m["on_error"] != nil {
		v, err := scalar(m["on_error"], path+".on_error")
		if err != nil {
			return s, err
		}
		switch p := Policy(v); p {
		case PolicyFail, PolicyFallback:
			s.OnError = p
		default:
			return s, specErrorf(path+".on_error", "%q is not a policy: fail or fallback", v)
		}
	}
	if fb := m["fallback"]; fb != nil {
		if s.OnError != PolicyFallback {
			return s, specErrorf(path+".fallback", "given without on_error: fallback, so it would never be used")
		}
		fm, err := mapping(fb, path+".fallback")
		if err != nil {
			return s, err
		}
		s.Fallback = make(map[string]Value, len(fm))
		for k, vn := range fm {
			v, err := literal(vn, path+".fallback."+k)
			if err != nil {
				return s, err
			}
			s.Fallback[k] = v
		}
	}
	if s.OnError == PolicyFallback && len(s.Fallback) == 0 {
		return s, specErrorf(path+".fallback", "missing: on_error: fallback needs a value for the step's outputs")
	}
	return s, nil
}

func decodeCondition(n *yaml.Node, path string) (Condition, error) {
	m, err := mapping(n, path, "source", "max", "min", "argmax")
	if err != nil {
		return Condition{}, err
	}
	var c Condition
	if c.Source, err = scalar(m["source"], path+".source"); err != nil {
		return c, err
	}
	var cmp *yaml.Node
	for _, s := range []Stat{StatMax, StatMin, StatArgmax} {
		if m[string(s)] == nil {
			continue
		}
		if cmp != nil {
			return c, specErrorf(path, "names both %s and %s: give one statistic", c.Stat, s)
		}
		c.Stat, cmp = s, m[string(s)]
	}
	if cmp == nil {
		return c, specErrorf(path, "needs a statistic of the source: max, min or argmax")
	}
	p := path + "." + string(c.Stat)
	cm, err := mapping(cmp, p, "below", "above", "equals")
	if err != nil {
		return c, err
	}
	if len(cm) == 0 {
		return c, specErrorf(p, "needs a comparison: below, above or equals")
	}
	for key, dst := range map[string]**float64{"below": &c.Below, "above": &c.Above, "equals": &c.Equals} {
		if cm[key] == nil {
			continue
		}
		v, err := number(cm[key], p+"."+key)
		if err != nil {
			return c, err
		}
		*dst = &v
	}
	return c, nil
}

func decodeJoin(n *yaml.Node, path string) (Join, error) {
	m, err := mapping(n, path, "name", "mean", "weighted_mean", "concat", "pick")
	if err != nil {
		return Join{}, err
	}
	var j Join
	if j.Name, err = name(m["name"], path+".name"); err != nil {
		return j, err
	}
	var body *yaml.Node
	for _, op := range []JoinOp{JoinMean, JoinWeightedMean, JoinConcat, JoinPick} {
		if m[string(op)] == nil {
			continue
		}
		if body != nil {
			return j, specErrorf(path, "names both %s and %s: a join is one of them", j.Op, op)
		}
		j.Op, body = op, m[string(op)]
	}
	if body == nil {
		return j, specErrorf(path, "needs one of mean, weighted_mean, concat or pick")
	}
	p := path + "." + string(j.Op)
	switch j.Op {
	case JoinMean, JoinPick:
		j.Sources, err = sourceList(body, p)
	case JoinWeightedMean:
		bm, err2 := mapping(body, p, "sources", "weights")
		if err2 != nil {
			return j, err2
		}
		if j.Sources, err = sourceList(bm["sources"], p+".sources"); err != nil {
			return j, err
		}
		ws, err2 := sequence(bm["weights"], p+".weights")
		if err2 != nil {
			return j, err2
		}
		for i, wn := range ws {
			w, err := number(wn, fmt.Sprintf("%s.weights[%d]", p, i))
			if err != nil {
				return j, err
			}
			if !(w > 0) {
				return j, specErrorf(fmt.Sprintf("%s.weights[%d]", p, i), "%v: a weight must be above 0", w)
			}
			j.Weights = append(j.Weights, w)
		}
		if len(j.Weights) != len(j.Sources) {
			return j, specErrorf(p+".weights", "%d weights for %d sources: give one per source", len(j.Weights), len(j.Sources))
		}
	case JoinConcat:
		bm, err2 := mapping(body, p, "sources", "axis")
		if err2 != nil {
			return j, err2
		}
		if j.Sources, err = sourceList(bm["sources"], p+".sources"); err != nil {
			return j, err
		}
		if bm["axis"] == nil {
			return j, specErrorf(p+".axis", "missing: the axis to join along, 1 or more (0 is the batch)")
		}
		a, err2 := number(bm["axis"], p+".axis")
		if err2 != nil {
			return j, err2
		}
		if a != float64(int(a)) || a < 1 {
			return j, specErrorf(p+".axis", "%v: must be a whole number of 1 or more (axis 0 is the batch, whose rows are the request's)", a)
		}
		j.Axis = int(a)
	}
	if err != nil {
		return j, err
	}
	if len(j.Sources) < 2 {
		return j, specErrorf(p, "needs at least two sources")
	}
	return j, nil
}

// mapping returns n's keys and values, refusing keys not in allowed (none given: any
// key) and keys given twice. A missing node is an empty mapping.
func mapping(n *yaml.Node, path string, allowed ...string) (map[string]*yaml.Node, error) {
	n = deref(n)
	out := map[string]*yaml.Node{}
	if n == nil || isNull(n) {
		return out, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, specErrorf(path, "expected a mapping, got %s", describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if len(allowed) > 0 && !slices.Contains(allowed, k) {
			return nil, specErrorf(join(path, k), "unknown field: expected one of %s", strings.Join(allowed, ", "))
		}
		if out[k] != nil {
			return nil, specErrorf(join(path, k), "given twice")
		}
		out[k] = n.Content[i+1]
	}
	return out, nil
}

// bindings reads a mapping of names to sources, keeping its order.
func bindings(n *yaml.Node, path string) ([]Binding, error) {
	if _, err := mapping(n, path); err != nil {
		return nil, err
	}
	n = deref(n)
	if n == nil || isNull(n) {
		return nil, nil
	}
	var out []Binding
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		src, err := scalar(n.Content[i+1], join(path, k))
		if err != nil {
			return nil, err
		}
		out = append(out, Binding{Name: k, Source: src})
	}
	return out, nil
}

func sequence(n *yaml.Node, path string) ([]*yaml.Node, error) {
	n = deref(n)
	if n == nil || isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, specErrorf(path, "expected a list, got %s", describe(n))
	}
	return n.Content, nil
}

func sourceList(n *yaml.Node, path string) ([]string, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], err = scalar(it, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scalar(n *yaml.Node, path string) (string, error) {
	n = deref(n)
	if n == nil || isNull(n) {
		return "", specErrorf(path, "missing")
	}
	if n.Kind != yaml.ScalarNode {
		return "", specErrorf(path, "expected a string, got %s", describe(n))
	}
	return n.Value, nil
}

func name(n *yaml.Node, path string) (string, error) {
	return named(n, path, namePattern, "a step or join name holds letters, digits, _ and -, and starts with a letter or digit")
}

func member(n *yaml.Node, path string) (string, error) {
	return named(n, path, memberPattern, "a model or version name holds letters, digits, ., _ and -, and starts with a letter or digit")
}

func named(n *yaml.Node, path string, pattern *regexp.Regexp, rule string) (string, error) {
	s, err := scalar(n, path)
	if err != nil {
		return "", err
	}
	if !pattern.MatchString(s) {
		return "", specErrorf(path, "%q: %s", s, rule)
	}
	return s, nil
}

func dtype(n *yaml.Node, path string) (string, error) {
	s, err := scalar(n, path)
	if err != nil {
		return "", err
	}
	switch s {
	case "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool":
		return s, nil
	}
	return "", specErrorf(path, "unknown dtype %q", s)
}

func shape(n *yaml.Node, path string) ([]int64, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	if n == nil || isNull(deref(n)) {
		return nil, specErrorf(path, "missing")
	}
	out := make([]int64, len(items))
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		v, err := number(it, p)
		if err != nil {
			return nil, err
		}
		if v != float64(int64(v)) || v < -1 || v == 0 {
			return nil, specErrorf(p, "%v: a dimension is a whole number of 1 or more, or -1 for any", v)
		}
		out[i] = int64(v)
	}
	return out, nil
}

func number(n *yaml.Node, path string) (float64, error) {
	n = deref(n)
	if n == nil || isNull(n) {
		return 0, specErrorf(path, "missing")
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, specErrorf(path, "expected a number, got %s", describe(n))
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		return 0, specErrorf(path, "%q is not a finite number", n.Value)
	}
	return v, nil
}

// literal reads a number or nested lists of numbers of a regular shape.
func literal(n *yaml.Node, path string) (Value, error) {
	n = deref(n)
	if n != nil && n.Kind == yaml.SequenceNode {
		var v Value
		for i, c := range n.Content {
			sub, err := literal(c, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return v, err
			}
			if i > 0 && tensor.FormatShape(sub.Shape) != tensor.FormatShape(v.Shape[1:]) {
				return v, specErrorf(fmt.Sprintf("%s[%d]", path, i), "shape %s unlike the elements before it, %s", tensor.FormatShape(sub.Shape), tensor.FormatShape(v.Shape[1:]))
			}
			if i == 0 {
				v.Shape = append([]int64{int64(len(n.Content))}, sub.Shape...)
			}
			v.Values = append(v.Values, sub.Values...)
		}
		if len(n.Content) == 0 {
			return v, specErrorf(path, "an empty list is no value")
		}
		return v, nil
	}
	x, err := number(n, path)
	if err != nil {
		return Value{}, err
	}
	return Value{Shape: []int64{}, Values: []float64{x}}, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

func join(path, key string) string { return path + "." + key }
