package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// Members gives the tensors of the member versions a graph calls; the registry
// implements it. For version "" it answers for the versions the model's routing may
// choose, which must then share one signature (or it answers an error), since a
// graph is typed once for every request.
type Members interface {
	Signature(model, version string) (Signature, error)
}

// Signature is a member version's tensor call: what it takes and answers, batch
// dimension first (pipeline.Info's TensorInputs and TensorOutputs).
type Signature struct {
	Inputs, Outputs []pipeline.Tensor
}

// Graph is a checked graph, ready to run. It holds no member state: a member that
// reloads with the same tensors is seen by the next run.
type Graph struct {
	inputs  []pipeline.Tensor
	outputs []pipeline.Tensor
	// outSrc is where each output comes from, by index of outputs.
	outSrc []ref
	// nodes are the steps and joins in an order where every node follows its sources.
	nodes []*node
	// chain: each node depends on the one before it (or there is one node), so a run
	// takes them one after the other on its own goroutine.
	chain bool
}

// Inputs are the tensors a request sends, batch dimension first.
func (g *Graph) Inputs() []pipeline.Tensor { return slices.Clone(g.inputs) }

// Outputs are the tensors a run answers, typed from their sources.
func (g *Graph) Outputs() []pipeline.Tensor { return slices.Clone(g.outputs) }

// ref is a source resolved: node -1 is the request; key is an input or output name,
// "" for a join's result. slot is where a run finds its tensor: the index of the
// input in the graph's inputs, of the output in its step's used, 0 for a join's.
type ref struct {
	node int
	key  string
	slot int
}

type node struct {
	name string
	path string
	step *Step
	join *Join
	// ins are the step's inputs (member input name to source) or the join's sources.
	ins  []Binding
	refs []ref
	when *ref
	deps []int
	sig  Signature
	// used are the step outputs some source refers to, which a call asks its member
	// for: its answer is checked for these, and a fallback must give them.
	used     []string
	fallback map[string]Value
}

// typ is what is known of a tensor at load.
type typ struct {
	dtype string
	shape []int64
	// optional: the tensor may be absent from a run (a skipped step's).
	optional bool
}

// Check types spec against its members: every source names a request input, a
// step output or a join; every step input gets the dtype and a shape compatible with
// what its member declares; joins combine tensors they can; no step depends on
// itself. Errors are *SpecError (ErrInvalidGraph) naming the field.
func Check(spec *Spec, members Members) (*Graph, error) {
	g := &Graph{inputs: spec.Inputs}
	index := map[string]int{}
	seen := map[string]string{}
	for i, in := range spec.Inputs {
		p := fmt.Sprintf("%s.inputs[%d].name", root, i)
		if prev, ok := seen[in.Name]; ok {
			return nil, specErrorf(p, "%q is also %s", in.Name, prev)
		}
		seen[in.Name] = p
	}
	var nodes []*node
	for i := range spec.Steps {
		s := &spec.Steps[i]
		nodes = append(nodes, &node{name: s.Name, path: fmt.Sprintf("%s.steps[%d]", root, i), step: s, ins: slices.Clone(s.Inputs), fallback: s.Fallback})
	}
	for i := range spec.Joins {
		j := &spec.Joins[i]
		ins := make([]Binding, len(j.Sources))
		for k, src := range j.Sources {
			ins[k] = Binding{Name: fmt.Sprintf("%s[%d]", sourcesField(j), k), Source: src}
		}
		nodes = append(nodes, &node{name: j.Name, path: fmt.Sprintf("%s.joins[%d]", root, i), join: j, ins: ins})
	}
	for i, n := range nodes {
		if n.name == "request" {
			return nil, specErrorf(n.path+".name", `"request" is reserved for the request's tensors`)
		}
		if prev, ok := index[n.name]; ok {
			return nil, specErrorf(n.path+".name", "%q is also the name of %s: steps and joins need distinct names", n.name, nodes[prev].path)
		}
		index[n.name] = i
	}
	// Resolve every reference to a node first, so that a cycle can be named before
	// types are asked of nodes not yet typed.
	for _, n := range nodes {
		for _, b := range n.ins {
			r, err := resolve(b.Source, n.path+"."+inField(n, b.Name), spec.Inputs, nodes, index)
			if err != nil {
				return nil, err
			}
			n.refs = append(n.refs, r)
			n.deps = appendDep(n.deps, r.node)
		}
		if n.step != nil && n.step.When != nil {
			r, err := resolve(n.step.When.Source, n.path+".when.source", spec.Inputs, nodes, index)
			if err != nil {
				return nil, err
			}
			n.when = &r
			n.deps = appendDep(n.deps, r.node)
		}
	}
	order, err := topological(nodes)
	if err != nil {
		return nil, err
	}
	for _, b := range spec.Outputs {
		r, err := resolve(b.Source, fmt.Sprintf("%s.outputs.%s", root, b.Name), spec.Inputs, nodes, index)
		if err != nil {
			return nil, err
		}
		g.outSrc = append(g.outSrc, r)
	}
	// Renumber nodes in topological order, so that a run may start them in it.
	pos := make([]int, len(nodes))
	for i, old := range order {
		pos[old] = i
	}
	renum := func(r ref) ref {
		if r.node >= 0 {
			r.node = pos[r.node]
		}
		return r
	}
	for _, n := range nodes {
		for k := range n.refs {
			n.refs[k] = renum(n.refs[k])
		}
		if n.when != nil {
			w := renum(*n.when)
			n.when = &w
		}
		for k := range n.deps {
			n.deps[k] = pos[n.deps[k]]
		}
	}
	for k := range g.outSrc {
		g.outSrc[k] = renum(g.outSrc[k])
	}
	for _, old := range order {
		g.nodes = append(g.nodes, nodes[old])
	}
	// A chain, each node taking from the one before, has nothing to run at once.
	g.chain = true
	for i, n := range g.nodes[1:] {
		g.chain = g.chain && slices.Contains(n.deps, i)
	}
	// Steps record which of their outputs are used, for the answer's check and the
	// fallback's.
	mark := func(r ref) {
		if r.node >= 0 && g.nodes[r.node].step != nil && !slices.Contains(g.nodes[r.node].used, r.key) {
			g.nodes[r.node].used = append(g.nodes[r.node].used, r.key)
		}
	}
	for _, n := range g.nodes {
		for _, r := range n.refs {
			mark(r)
		}
		if n.when != nil {
			mark(*n.when)
		}
	}
	for _, r := range g.outSrc {
		mark(r)
	}
	// A run finds each source's tensor by its slot, so that no tensors pass between
	// nodes in maps.
	slot := func(r *ref) {
		switch {
		case r.node < 0:
			r.slot = slices.IndexFunc(spec.Inputs, func(t pipeline.Tensor) bool { return t.Name == r.key })
		case g.nodes[r.node].step != nil:
			r.slot = slices.Index(g.nodes[r.node].used, r.key)
		}
	}
	for _, n := range g.nodes {
		for k := range n.refs {
			slot(&n.refs[k])
		}
		if n.when != nil {
			slot(n.when)
		}
	}
	for k := range g.outSrc {
		slot(&g.outSrc[k])
	}
	types := make([][]typ, len(g.nodes))
	// typeOf is a source's type; its node is typed already, being earlier in order.
	typeOf := func(r ref, path, src string) (typ, error) {
		if r.node < 0 {
			i := slices.IndexFunc(spec.Inputs, func(t pipeline.Tensor) bool { return t.Name == r.key })
			return typ{dtype: spec.Inputs[i].DType, shape: spec.Inputs[i].Shape}, nil
		}
		n := g.nodes[r.node]
		if n.join != nil {
			return types[r.node][0], nil
		}
		k := slices.IndexFunc(n.sig.Outputs, func(t pipeline.Tensor) bool { return t.Name == r.key })
		if k < 0 {
			return typ{}, specErrorf(path, "%q: model %s has no output %q; its outputs are %s", src, n.step.Model, r.key, names(n.sig.Outputs))
		}
		return types[r.node][k], nil
	}
	for i, n := range g.nodes {
		var err error
		if n.step != nil {
			types[i], err = checkStep(n, members, typeOf)
		} else {
			var t typ
			t, err = checkJoin(n, typeOf)
			types[i] = []typ{t}
		}
		if err != nil {
			return nil, err
		}
	}
	for i, b := range spec.Outputs {
		p := fmt.Sprintf("%s.outputs.%s", root, b.Name)
		t, err := typeOf(g.outSrc[i], p, b.Source)
		if err != nil {
			return nil, err
		}
		if t.optional {
			return nil, specErrorf(p, "%s may be absent (%s): pick it with a source that is always present", b.Source, absentWhy(g, g.outSrc[i]))
		}
		g.outputs = append(g.outputs, pipeline.Tensor{Name: b.Name, DType: t.dtype, Shape: t.shape})
	}
	// A step calls its member with its inputs in name order, the order the member's
	// errors name the first it refuses by.
	for _, n := range g.nodes {
		if n.step == nil || len(n.ins) < 2 {
			continue
		}
		ins, refs := slices.Clone(n.ins), slices.Clone(n.refs)
		order := make([]int, len(ins))
		for k := range order {
			order[k] = k
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(ins[a].Name, ins[b].Name) })
		for k, o := range order {
			n.ins[k], n.refs[k] = ins[o], refs[o]
		}
	}
	return g, nil
}

func sourcesField(j *Join) string {
	if j.Op == JoinMean || j.Op == JoinPick {
		return string(j.Op)
	}
	return string(j.Op) + ".sources"
}

func inField(n *node, name string) string {
	if n.step != nil {
		return "inputs." + name
	}
	return name
}

func appendDep(deps []int, d int) []int {
	if d < 0 || slices.Contains(deps, d) {
		return deps
	}
	return append(deps, d)
}

// resolve finds what a source names; it checks the output's name against the
// member's signature later, once the member is known.
func resolve(src, path string, inputs []pipeline.Tensor, nodes []*node, index map[string]int) (ref, error) {
	head, key, dotted := strings.Cut(src, ".")
	if head == "request" {
		if !dotted || !slices.ContainsFunc(inputs, func(t pipeline.Tensor) bool { return t.Name == key }) {
			return ref{}, specErrorf(path, "%q: the request has no such tensor; its inputs are %s", src, names(inputs))
		}
		return ref{node: -1, key: key}, nil
	}
	i, ok := index[head]
	if !ok {
		return ref{}, specErrorf(path, "%q names no step or join: a source is request.<input>, <step>.<output> or <join>", src)
	}
	if nodes[i].join != nil {
		if dotted {
			return ref{}, specErrorf(path, "%q: %s is a join, whose result is named %s alone", src, head, head)
		}
		return ref{node: i}, nil
	}
	if !dotted || key == "" {
		return ref{}, specErrorf(path, "%q: name one of step %s's outputs, as %s.<output>", src, head, head)
	}
	return ref{node: i, key: key}, nil
}

// topological orders nodes so that each follows its dependencies, or names a cycle.
func topological(nodes []*node) ([]int, error) {
	const (
		unseen = iota
		visiting
		done
	)
	state := make([]int, len(nodes))
	var order, stack []int
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			start := slices.Index(stack, i)
			cycle := make([]string, 0, len(stack)-start+1)
			for _, k := range stack[start:] {
				cycle = append(cycle, nodes[k].name)
			}
			cycle = append(cycle, nodes[i].name)
			return specErrorf(nodes[i].path, "cycle: %s", strings.Join(cycle, " -> "))
		}
		state[i] = visiting
		stack = append(stack, i)
		for _, d := range nodes[i].deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
		order = append(order, i)
		return nil
	}
	for i := range nodes {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

func checkStep(n *node, members Members, typeOf func(ref, string, string) (typ, error)) ([]typ, error) {
	s := n.step
	sig, err := members.Signature(s.Model, s.Version)
	field, who := n.path+".model", "model "+s.Model
	if s.Version != "" {
		field, who = n.path+".version", fmt.Sprintf("model %s version %s", s.Model, s.Version)
	}
	if err != nil {
		return nil, &SpecError{Path: field, Msg: who, Err: err}
	}
	if len(sig.Inputs) == 0 || len(sig.Outputs) == 0 {
		return nil, specErrorf(field, "%s declares no tensors (it takes any JSON), so its step cannot be typed", who)
	}
	n.sig = sig
	optional := false
	for k, b := range s.Inputs {
		p := n.path + ".inputs." + b.Name
		i := slices.IndexFunc(sig.Inputs, func(t pipeline.Tensor) bool { return t.Name == b.Name })
		if i < 0 {
			return nil, specErrorf(p, "%s has no input %q; its inputs are %s", who, b.Name, names(sig.Inputs))
		}
		got, err := typeOf(n.refs[k], p, b.Source)
		if err != nil {
			return nil, err
		}
		want := sig.Inputs[i]
		if err := fits(want, got, b.Source); err != nil {
			return nil, specErrorf(p, "%v", err)
		}
		optional = optional || got.optional
	}
	for _, in := range sig.Inputs {
		if !slices.ContainsFunc(s.Inputs, func(b Binding) bool { return b.Name == in.Name }) {
			return nil, specErrorf(n.path+".inputs", "%s's input %q has no source", who, in.Name)
		}
	}
	if s.When != nil {
		optional = true
		t, err := typeOf(*n.when, n.path+".when.source", s.When.Source)
		if err != nil {
			return nil, err
		}
		if err := checkCondition(s.When, t, n.path+".when"); err != nil {
			return nil, err
		}
	}
	if err := checkFallback(n, who); err != nil {
		return nil, err
	}
	out := make([]typ, len(sig.Outputs))
	for k, o := range sig.Outputs {
		out[k] = typ{dtype: o.DType, shape: o.Shape, optional: optional}
	}
	return out, nil
}

// fits reports how a source's tensor does not fit a declared input.
func fits(want pipeline.Tensor, got typ, src string) error {
	if got.dtype != want.DType {
		return fmt.Errorf("%s is %s, the input takes %s", src, got.dtype, want.DType)
	}
	if !tensor.Compatible(want.Shape, got.shape) {
		return fmt.Errorf("%s has shape %s, the input takes %s", src, tensor.FormatShape(got.shape), tensor.FormatShape(want.Shape))
	}
	return nil
}

func checkCondition(c *Condition, t typ, path string) error {
	if t.dtype == string(tensor.Bytes) {
		return specErrorf(path+".source", "%s is %s: a condition reads numbers", c.Source, t.dtype)
	}
	if len(t.shape) < 2 && c.Stat == StatArgmax {
		return specErrorf(path+".argmax", "%s has shape %s: argmax needs a row of values beside the batch dimension", c.Source, tensor.FormatShape(t.shape))
	}
	if c.Below != nil && c.Above != nil && *c.Above >= *c.Below {
		return specErrorf(path+"."+string(c.Stat), "above %v and below %v: no value is both", *c.Above, *c.Below)
	}
	return nil
}

func checkFallback(n *node, who string) error {
	if n.step.OnError != PolicyFallback {
		return nil
	}
	p := n.path + ".fallback"
	for out, v := range n.fallback {
		i := slices.IndexFunc(n.sig.Outputs, func(t pipeline.Tensor) bool { return t.Name == out })
		if i < 0 {
			return specErrorf(p+"."+out, "%s has no output %q; its outputs are %s", who, out, names(n.sig.Outputs))
		}
		o := n.sig.Outputs[i]
		if len(o.Shape) == 0 || !tensor.Compatible(o.Shape[1:], v.Shape) {
			return specErrorf(p+"."+out, "a value of shape %s, but one row of %s is %s", tensor.FormatShape(v.Shape), out, rowShape(o.Shape))
		}
		d := tensor.DType(o.DType)
		for k, x := range v.Values {
			if !d.IsFloat() && x != float64(int64(x)) || !d.InRange(x) {
				return specErrorf(p+"."+out, "element %d, %v, is not a %s", k, x, d)
			}
		}
	}
	for _, u := range n.used {
		declared := slices.ContainsFunc(n.sig.Outputs, func(t pipeline.Tensor) bool { return t.Name == u })
		if _, ok := n.fallback[u]; declared && !ok {
			return specErrorf(p, "no value for %s.%s, which the graph uses", n.name, u)
		}
	}
	return nil
}

func rowShape(s []int64) string {
	if len(s) == 0 {
		return "[]"
	}
	return tensor.FormatShape(s[1:])
}

func checkJoin(n *node, typeOf func(ref, string, string) (typ, error)) (typ, error) {
	j := n.join
	p := n.path + "." + sourcesField(j)
	ts := make([]typ, len(n.refs))
	allOptional := true
	for k, r := range n.refs {
		t, err := typeOf(r, fmt.Sprintf("%s[%d]", p, k), j.Sources[k])
		if err != nil {
			return typ{}, err
		}
		ts[k] = t
		allOptional = allOptional && ts[k].optional
		if j.Op != JoinPick && ts[k].optional {
			return typ{}, specErrorf(fmt.Sprintf("%s[%d]", p, k), "%s may be absent, and %s needs every source: pick it with one that is always present first", j.Sources[k], j.Op)
		}
		if ts[k].dtype != ts[0].dtype {
			return typ{}, specErrorf(fmt.Sprintf("%s[%d]", p, k), "%s is %s, %s is %s: a join's sources share a dtype", j.Sources[k], ts[k].dtype, j.Sources[0], ts[0].dtype)
		}
	}
	out := typ{dtype: ts[0].dtype, shape: slices.Clone(ts[0].shape), optional: j.Op == JoinPick && allOptional}
	if j.Op != JoinPick && out.dtype == string(tensor.Bytes) {
		return typ{}, specErrorf(p, "%s of bytes tensors: only pick takes them", j.Op)
	}
	if (j.Op == JoinMean || j.Op == JoinWeightedMean) && !tensor.DType(out.dtype).IsFloat() {
		return typ{}, specErrorf(p, "%s of %s tensors: a mean needs float32 or float64", j.Op, out.dtype)
	}
	for k := 1; k < len(ts); k++ {
		kp := fmt.Sprintf("%s[%d]", p, k)
		if j.Op != JoinConcat {
			if !tensor.Compatible(out.shape, ts[k].shape) {
				return typ{}, specErrorf(kp, "%s has shape %s, %s has %s: %s needs one shape", j.Sources[k], tensor.FormatShape(ts[k].shape), j.Sources[0], tensor.FormatShape(ts[0].shape), j.Op)
			}
			for d := range out.shape {
				out.shape[d] = max(out.shape[d], ts[k].shape[d])
			}
			continue
		}
		a := j.Axis
		if len(ts[k].shape) != len(out.shape) || a >= len(out.shape) {
			return typ{}, specErrorf(kp, "%s has shape %s, %s has %s: concat along axis %d needs tensors of one rank above %d", j.Sources[k], tensor.FormatShape(ts[k].shape), j.Sources[0], tensor.FormatShape(ts[0].shape), a, a)
		}
		for d := range out.shape {
			if d == a {
				continue
			}
			if x, y := out.shape[d], ts[k].shape[d]; x >= 0 && y >= 0 && x != y {
				return typ{}, specErrorf(kp, "%s has shape %s, %s has %s: concat along axis %d needs the other dimensions equal", j.Sources[k], tensor.FormatShape(ts[k].shape), j.Sources[0], tensor.FormatShape(ts[0].shape), a)
			}
			out.shape[d] = max(out.shape[d], ts[k].shape[d])
		}
		if out.shape[a] < 0 || ts[k].shape[a] < 0 {
			out.shape[a] = -1
		} else {
			out.shape[a] += ts[k].shape[a]
		}
	}
	if j.Op == JoinConcat && j.Axis >= len(out.shape) {
		return typ{}, specErrorf(n.path+".concat.axis", "%d, but the sources have %d dimensions", j.Axis, len(out.shape))
	}
	return out, nil
}

// absentWhy names the step whose when may leave r absent.
func absentWhy(g *Graph, r ref) string {
	n := g.nodes[r.node]
	if n.step != nil && n.step.When != nil {
		return "step " + n.name + " has a when"
	}
	for _, d := range n.deps {
		if g.nodes[d].step != nil && g.nodes[d].step.When != nil {
			return "it depends on step " + g.nodes[d].name + ", which has a when"
		}
	}
	return "it depends on a step with a when"
}

func names(ts []pipeline.Tensor) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return strings.Join(out, ", ")
}
