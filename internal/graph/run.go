package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// Caller makes one member call: the registry's tensor call, inputs and outputs by
// name with the batch dimension first. It answers the call's Outputs, in their
// order. It must not change the tensors it is given: one tensor may feed several
// steps at once.
type Caller interface {
	Call(ctx context.Context, c Call) ([]tensor.Named, error)
}

// Call is one step's member call.
type Call struct {
	// Step names the step, for the caller's spans and metrics.
	Step string
	// Model and Version name the member; Version "" is the model's routing.
	Model, Version string
	// Inputs are the member's inputs, in name order.
	Inputs []tensor.Named
	// Outputs are the member's outputs the graph uses, the ones to answer.
	Outputs []string
}

// Outcome is what one step of a run did.
type Outcome string

// The outcomes of a step.
const (
	OutcomeAnswered Outcome = "answered" // its member answered
	OutcomeSkipped  Outcome = "skipped"  // its condition was false, or a source absent
	OutcomeFallback Outcome = "fallback" // its member failed, and it answered its fallback
	OutcomeFailed   Outcome = "failed"   // its member failed, and so did the run
)

// Event is what an Observer is told of one step of a run, as the step ends.
type Event struct {
	Step, Model, Version string
	Outcome              Outcome
	// Took is how long the member call took; 0 for a skipped step.
	Took time.Duration
	// Inputs are what the step was given; Outputs what it passed on (the outputs of
	// its member's answer the graph uses, or its fallback). Both are nil for a skipped
	// step, and must not be changed: later steps read them.
	Inputs, Outputs []tensor.Named
	// Err is the member's failure, for OutcomeFallback and OutcomeFailed.
	Err error
}

// Observer is told of every step of a run as it ends, from the goroutine that ran
// it: steps end concurrently, so it must be safe for concurrent use.
type Observer func(Event)

type observerKey struct{}

// WithObserver returns ctx with observe added to the observers every Run under ctx
// tells of its steps, after those ctx had already (as net/http/httptrace composes its
// hooks): a server's metrics and one request's debugging view both watch a run.
func WithObserver(ctx context.Context, observe Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, both(observerOf(ctx), observe))
}

// both tells first, then second, of every step; either may be nil.
func both(first, second Observer) Observer {
	switch {
	case first == nil:
		return second
	case second == nil:
		return first
	}
	return func(e Event) { first(e); second(e) }
}

func observerOf(ctx context.Context) Observer {
	o, _ := ctx.Value(observerKey{}).(Observer)
	return o
}

// result is what one node left for the nodes after it.
type result struct {
	done chan struct{}
	// present is false for a step that was skipped (its when false, or a source
	// absent) and for a pick with nothing to pick.
	present bool
	// outs are a step's used outputs (node.used) or a join's one result, by slot.
	outs []tensor.Named
}

// Run sends one request through the graph: request holds the graph's inputs, and
// the answer its outputs, in the order of Outputs. Every node starts at once and
// waits for its sources, so steps that do not depend on each other run concurrently.
// ctx is passed to every member call; the first failure, or ctx's end, stops the
// rest. Errors wrap ErrInvalidInput (the request does not match Inputs),
// ErrStepFailed (a *StepError that also wraps the member's error), ErrExecution, or
// ctx's error.
//
// observe, when not nil, is told of each step before the observers of ctx
// (WithObserver) are: a server's own, given at every run at no allocation, beside a
// request's.
func (g *Graph) Run(ctx context.Context, request []tensor.Named, call Caller, observe Observer) ([]tensor.Named, error) {
	request, rows, err := g.checkRequest(request)
	if err != nil {
		return nil, err
	}
	if observe = both(observe, observerOf(ctx)); observe == nil {
		observe = func(Event) {}
	}
	res := make([]result, len(g.nodes))
	if g.chain {
		// Nothing to overlap: no goroutine per node and no channel (a one-step graph
		// costs what its step does, not a scheduler's round trip); each node's
		// sources have finished before it starts.
		for i, n := range g.nodes {
			if err := g.runNodeSafely(ctx, n, rows, request, res, &res[i], call, observe); err != nil {
				return nil, err
			}
			if err := ctx.Err(); err != nil {
				return nil, context.Cause(ctx)
			}
		}
		return g.outputsOf(request, res)
	}
	if err := g.runConcurrently(ctx, rows, request, res, call, observe); err != nil {
		return nil, err
	}
	return g.outputsOf(request, res)
}

// runConcurrently runs every node at once, each waiting for its sources. It is a
// function of its own so that what its goroutines capture escapes to the heap here,
// not in every chain's Run.
func (g *Graph) runConcurrently(ctx context.Context, rows int64, request []tensor.Named, res []result, call Caller, observe Observer) error {
	for i := range res {
		res[i].done = make(chan struct{})
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The first node's failure is the run's error, even when it came of ctx's end:
	// it names the step the deadline cut short.
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for i, n := range g.nodes {
		wg.Go(func() {
			defer close(res[i].done)
			if err := g.runNodeSafely(ctx, n, rows, request, res, &res[i], call, observe); err != nil {
				once.Do(func() { first = err })
				cancel(err)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// outputsOf is a finished run's answer.
func (g *Graph) outputsOf(request []tensor.Named, res []result) ([]tensor.Named, error) {
	out := make([]tensor.Named, len(g.outputs))
	for k, o := range g.outputs {
		t, ok := value(g.outSrc[k], request, res)
		if !ok {
			// Check refuses an output that may be absent; this is a guard, not a path.
			return nil, fmt.Errorf("%w: output %q is absent", ErrExecution, o.Name)
		}
		out[k] = tensor.Named{Name: o.Name, Tensor: t}
	}
	return out, nil
}

// value is a source's tensor, and whether it is present.
func value(r ref, request []tensor.Named, res []result) (*tensor.Tensor, bool) {
	if r.node < 0 {
		return request[r.slot].Tensor, true
	}
	if !res[r.node].present {
		return nil, false
	}
	return res[r.node].outs[r.slot].Tensor, true
}

// checkRequest checks the request's tensors against the graph's inputs and answers
// them in the inputs' order, and their rows.
func (g *Graph) checkRequest(request []tensor.Named) ([]tensor.Named, int64, error) {
	for k, in := range request {
		if !g.hasInput(in.Name) {
			return nil, 0, fmt.Errorf("%w: unknown input %q; the graph takes %s", ErrInvalidInput, in.Name, names(g.inputs))
		}
		if slices.ContainsFunc(request[:k], func(o tensor.Named) bool { return o.Name == in.Name }) {
			return nil, 0, fmt.Errorf("%w: input %q is given twice", ErrInvalidInput, in.Name)
		}
	}
	if !inOrder(request, g.inputs) {
		ordered := make([]tensor.Named, 0, len(g.inputs))
		for _, in := range g.inputs {
			k := slices.IndexFunc(request, func(o tensor.Named) bool { return o.Name == in.Name })
			if k < 0 {
				ordered = append(ordered, tensor.Named{Name: in.Name})
				continue
			}
			ordered = append(ordered, request[k])
		}
		request = ordered
	}
	rows := int64(-1)
	for k, in := range g.inputs {
		t := request[k].Tensor
		switch {
		case t == nil:
			return nil, 0, fmt.Errorf("%w: input %q is missing; the graph takes %s", ErrInvalidInput, in.Name, names(g.inputs))
		case string(t.DType) != in.DType:
			return nil, 0, fmt.Errorf("%w: input %q is %s, the graph takes %s", ErrInvalidInput, in.Name, t.DType, in.DType)
		case !tensor.Compatible(in.Shape, t.Shape):
			return nil, 0, fmt.Errorf("%w: input %q has shape %s, the graph takes %s", ErrInvalidInput, in.Name, tensor.FormatShape(t.Shape), tensor.FormatShape(in.Shape))
		case t.Shape[0] < 1:
			return nil, 0, fmt.Errorf("%w: input %q has no rows", ErrInvalidInput, in.Name)
		case rows >= 0 && t.Shape[0] != rows:
			return nil, 0, fmt.Errorf("%w: input %q has %d rows, another input %d", ErrInvalidInput, in.Name, t.Shape[0], rows)
		}
		if err := t.Check(); err != nil {
			return nil, 0, fmt.Errorf("%w: input %q: %v", ErrInvalidInput, in.Name, err)
		}
		rows = t.Shape[0]
	}
	return request, rows, nil
}

// inOrder says whether request holds exactly inputs, in their order: a request to a
// graph of one input, the usual one, does.
func inOrder(request []tensor.Named, inputs []pipeline.Tensor) bool {
	if len(request) != len(inputs) {
		return false
	}
	for k, in := range inputs {
		if request[k].Name != in.Name {
			return false
		}
	}
	return true
}

func (g *Graph) hasInput(name string) bool {
	for _, in := range g.inputs {
		if in.Name == name {
			return true
		}
	}
	return false
}

// runNodeSafely turns a panic in a node (a Caller's) into the run's error: a
// goroutine's panic is beyond the recovery of whoever called Run, and would end the
// process.
func (g *Graph) runNodeSafely(ctx context.Context, n *node, rows int64, request []tensor.Named, res []result, mine *result, call Caller, observe Observer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			mine.present = false
			err = fmt.Errorf("%w: %s %q panicked: %v", ErrExecution, n.kind(), n.name, p)
		}
	}()
	return g.runNode(ctx, n, rows, request, res, mine, call, observe)
}

func (n *node) kind() string {
	if n.step != nil {
		return "step"
	}
	return "join"
}

func (g *Graph) runNode(ctx context.Context, n *node, rows int64, request []tensor.Named, res []result, mine *result, call Caller, observe Observer) error {
	for _, d := range n.deps {
		if res[d].done == nil {
			continue // a chain's: finished before this node started
		}
		select {
		case <-res[d].done:
		case <-ctx.Done():
			return nil // the cause is recorded already
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if n.join != nil {
		return runJoin(n, request, res, mine)
	}
	s := n.step
	skipped := func() error {
		observe(Event{Step: n.name, Model: s.Model, Version: s.Version, Outcome: OutcomeSkipped})
		return nil
	}
	ins := make([]tensor.Named, len(n.refs))
	for k, r := range n.refs {
		t, ok := value(r, request, res)
		if !ok {
			return skipped() // a source was skipped, so this step is too
		}
		ins[k] = tensor.Named{Name: n.ins[k].Name, Tensor: t}
	}
	if n.when != nil {
		t, ok := value(*n.when, request, res)
		if !ok || !holds(s.When, t) {
			return skipped()
		}
	}
	start := time.Now()
	outs, err := call.Call(ctx, Call{Step: n.name, Model: s.Model, Version: s.Version, Inputs: ins, Outputs: n.used})
	if err == nil {
		err = n.checkAnswer(outs, rows)
	}
	ev := Event{Step: n.name, Model: s.Model, Version: s.Version, Outcome: OutcomeAnswered, Took: time.Since(start), Inputs: ins, Outputs: outs, Err: err}
	if err != nil {
		// A run that is over (cancelled, past its deadline) ends with that, not with a
		// fallback that would make it look answered.
		if s.OnError == PolicyFallback && ctx.Err() == nil {
			mine.outs, mine.present = n.fallbackOutputs(rows), true
			ev.Outcome, ev.Outputs = OutcomeFallback, mine.outs
			observe(ev)
			return nil
		}
		ev.Outcome, ev.Outputs = OutcomeFailed, nil
		observe(ev)
		if errors.Is(err, ErrExecution) {
			return fmt.Errorf("graph step %q: %w", n.name, err)
		}
		return &StepError{Step: n.name, Model: s.Model, Version: s.Version, Err: err}
	}
	mine.outs, mine.present = outs, true
	observe(ev)
	return nil
}

// checkAnswer refuses an answer without the outputs the graph uses as declared, in
// their order, so that nothing but a member's declared tensors flows on.
func (n *node) checkAnswer(outs []tensor.Named, rows int64) error {
	if len(outs) != len(n.used) {
		return fmt.Errorf("%w: model %s answered %d outputs for the %d asked", ErrExecution, n.step.Model, len(outs), len(n.used))
	}
	for k, u := range n.used {
		var t *tensor.Tensor
		if outs[k].Name == u {
			t = outs[k].Tensor
		}
		var want []int64
		var dtype string
		for _, o := range n.sig.Outputs {
			if o.Name == u {
				want, dtype = o.Shape, o.DType
			}
		}
		switch {
		case t == nil:
			return fmt.Errorf("%w: model %s answered without output %q", ErrExecution, n.step.Model, u)
		case string(t.DType) != dtype || !tensor.Compatible(want, t.Shape) || len(t.Shape) == 0 || t.Shape[0] != rows:
			return fmt.Errorf("%w: model %s answered %q as %s %s, not %s %s with %d rows", ErrExecution, n.step.Model, u, t.DType, tensor.FormatShape(t.Shape), dtype, tensor.FormatShape(want), rows)
		}
		if err := t.Check(); err != nil {
			return fmt.Errorf("%w: model %s's output %q: %v", ErrExecution, n.step.Model, u, err)
		}
	}
	return nil
}

// fallbackOutputs repeats each fallback row for every row of the request, for the
// outputs the graph uses (Check holds the fallback to give them all).
func (n *node) fallbackOutputs(rows int64) []tensor.Named {
	outs := make([]tensor.Named, 0, len(n.used))
	for _, name := range n.used {
		v := n.fallback[name]
		var d tensor.DType
		for _, o := range n.sig.Outputs {
			if o.Name == name {
				d = tensor.DType(o.DType)
			}
		}
		shape := append([]int64{rows}, v.Shape...)
		vals := make([]float64, 0, int(rows)*len(v.Values))
		for range rows {
			vals = append(vals, v.Values...)
		}
		if d.IsFloat() {
			outs = append(outs, tensor.Named{Name: name, Tensor: tensor.NewFloat(d, shape, vals)})
			continue
		}
		ints := make([]int64, len(vals))
		for i, x := range vals {
			ints[i] = int64(x)
		}
		outs = append(outs, tensor.Named{Name: name, Tensor: tensor.NewInt(d, shape, ints)})
	}
	return outs
}
