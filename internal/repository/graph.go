package repository

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/telemetry"
	"github.com/inferd/inferd/internal/tensor"
)

// Graphs is the registry a repository's graphs are checked against and call: set
// with Serve once the registry that loads the repository is built (it is built from
// the repository's Source, so it cannot be given before). The zero value serves no
// graph: a version with graph: fails to load saying so.
type Graphs struct {
	reg atomic.Pointer[registry.Registry]
	// Tracer, when set, gives each step's member call a span (telemetry.SpanGraphStep)
	// whose children are the member's own spans. nil: none.
	Tracer trace.Tracer
	// Steps, when set, is told of every step of every run, for metrics.
	Steps StepObserver
}

// StepObserver is told of each step of a graph's runs: model and version are the
// graph's. It must be cheap and safe for concurrent use.
type StepObserver interface {
	GraphStep(model, version, step string, outcome graph.Outcome, d time.Duration)
}

// Serve makes r the registry of the repository's graphs.
func (g *Graphs) Serve(r *registry.Registry) { g.reg.Store(r) }

var errNoRegistry = errors.New("this server serves no graphs from this repository")

// Signature is graph.Members: a member's tensor call as the registry routes it.
func (g *Graphs) Signature(model, version string) (graph.Signature, error) {
	r := g.reg.Load()
	if r == nil {
		return graph.Signature{}, errNoRegistry
	}
	in, out, err := r.Signature(model, version)
	return graph.Signature{Inputs: in, Outputs: out}, err
}

// Call is graph.Caller: a member call is the registry's tensor call, as /v2 infer
// makes one, so it runs the member's own steps, batcher, metrics and spans. The
// registry answers the outputs asked, in their order, as a Caller must.
func (g *Graphs) Call(ctx context.Context, c graph.Call) (_ []tensor.Named, err error) {
	r := g.reg.Load()
	if r == nil {
		return nil, errNoRegistry
	}
	if g.Tracer != nil {
		var span trace.Span
		ctx, span = g.Tracer.Start(ctx, telemetry.SpanGraphStep, trace.WithAttributes(
			telemetry.GraphStep.String(c.Step), telemetry.Model.String(c.Model), telemetry.RequestedVersion.String(c.Version)))
		defer func() { telemetry.End(span, err) }()
	}
	// The request's route note names the graph, which the access log reports; the
	// members, called at once, must not write theirs over it.
	res, err := r.Infer(ctx, registry.InferRequest{Model: c.Model, Version: c.Version, Inputs: c.Inputs, Outputs: c.Outputs, KeepNote: true})
	if err != nil {
		return nil, err
	}
	return res.Outputs, nil
}

// graphModel is a graph version's model stage: the items of a run are the rows of
// the graph's one input, stacked into one request to the graph, whose outputs are cut
// back into a tensor.Map per item, as a backend's model answers.
type graphModel struct {
	g    *graph.Graph
	call graph.Caller
	// observe reports the steps of every run to the metrics; nil: none.
	observe graph.Observer
	// in is the graph's input; ins and outs its tensors, batch dimension first.
	in        pipeline.Tensor
	ins, outs []pipeline.Tensor
	size      int64
}

func (m *graphModel) Predict(ctx context.Context, batch []any) ([]any, error) {
	var one [1]*tensor.Tensor // a request of one row, the usual one, allocates no slice
	rows := one[:0]
	if len(batch) > 1 {
		rows = make([]*tensor.Tensor, 0, len(batch))
	}
	for i, v := range batch {
		t, ok := v.(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("%w: graph item %d is a %T, not a tensor; the preprocess steps must end in one", pipeline.ErrExecution, i, v)
		}
		rows = append(rows, t)
	}
	in, err := tensor.Stack(rows)
	if err != nil {
		return nil, fmt.Errorf("%w: graph input %q: %v", pipeline.ErrExecution, m.in.Name, err)
	}
	out, err := m.Infer(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(batch) == 1 {
		// The run's answer is this item's alone, each tensor its one row.
		item := make(tensor.Map, len(out))
		for _, o := range out {
			item[o.Name] = o.Tensor.Row(0)
		}
		return []any{item}, nil
	}
	res := make([]any, len(batch))
	for i := range res {
		res[i] = make(tensor.Map, len(out))
	}
	for _, o := range out {
		for i, row := range o.Tensor.Rows() {
			res[i].(tensor.Map)[o.Name] = row
		}
	}
	return res, nil
}

// Infer is pipeline.TensorModel: a tensor call to a graph with no steps of its own
// is the graph's run of the call's tensor as it came.
func (m *graphModel) Infer(ctx context.Context, in *tensor.Tensor) ([]tensor.Named, error) {
	out, err := m.g.Run(ctx, []tensor.Named{{Name: m.in.Name, Tensor: in}}, m.call, m.observe)
	if err != nil {
		return nil, stepError(err)
	}
	return out, nil
}

func (m *graphModel) Close() error                   { return nil }
func (m *graphModel) Size() int64                    { return m.size }
func (m *graphModel) Inputs() []pipeline.Tensor      { return m.ins }
func (m *graphModel) Outputs() []pipeline.Tensor     { return m.outs }
func (m *graphModel) ItemInputs() []pipeline.Tensor  { return unbatched(m.ins) }
func (m *graphModel) ItemOutputs() []pipeline.Tensor { return unbatched(m.outs) }

// Platform names a graph as Triton names an ensemble; it has no runtime of its own.
func (m *graphModel) Platform() (platform, runtime string) { return "ensemble", "" }

func unbatched(ts []pipeline.Tensor) []pipeline.Tensor {
	out := make([]pipeline.Tensor, len(ts))
	for i, t := range ts {
		t.Shape = t.Shape[1:]
		out[i] = t
	}
	return out
}

// stepError words a graph's failure for the version's callers. A failed step wraps
// its member's error, whose sentinels describe the member (its model not found would
// read as the graph's): so the member's fault becomes the graph's own kind, naming
// the step: the request's values a member refused are the request's fault; a member
// not serving makes the graph unavailable; anything else is the graph's execution
// error. A deadline or a cancellation stays what it is.
func stepError(err error) error {
	var se *graph.StepError
	switch {
	case !errors.As(err, &se):
		if errors.Is(err, graph.ErrInvalidInput) {
			return pipeline.Invalid("", "%s", strings.TrimPrefix(err.Error(), graph.ErrInvalidInput.Error()+": "))
		}
		return err
	case errors.Is(se.Err, context.Canceled), errors.Is(se.Err, context.DeadlineExceeded):
		return err
	}
	var ie *pipeline.InputError
	switch member := se.Err; {
	case errors.As(member, &ie) && !errors.Is(member, registry.ErrInvalidTensor):
		return &pipeline.InputError{Item: ie.Item, Path: ie.Path, Msg: fmt.Sprintf("graph step %q (model %s) refused it: %s", se.Step, se.Model, ie.Msg)}
	case errors.Is(member, registry.ErrModelNotFound), errors.Is(member, registry.ErrVersionNotFound),
		errors.Is(member, registry.ErrLoading), errors.Is(member, registry.ErrUnavailable),
		errors.Is(member, registry.ErrModelUnloaded):
		return fmt.Errorf("%w: %s", registry.ErrUnavailable, se.Error())
	}
	return fmt.Errorf("%w: %s", pipeline.ErrExecution, se.Error())
}
