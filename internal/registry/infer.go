package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// ModeInfer labels tensor-level calls (Infer) in metrics, beside sync and async
// predictions.
const ModeInfer Mode = "infer"

// Named is a named tensor whose Shape includes the batch dimension; the name stays
// so that the code base need not change at once.
type Named = tensor.Named

// InferRequest is one tensor-level call: tensors in, tensors out, through the
// version's steps that act on tensors (pipeline.Pipeline's TensorPre and TensorPost),
// so that it answers the numbers a prediction would.
type InferRequest struct {
	// Model names the model; Version the version, or "" for the model's rule to choose.
	Model, Version string
	// Inputs are the version's tensor inputs by name (pipeline.Info's TensorInputs),
	// batch dimension first. A model that declares no tensors (echo) takes any and
	// answers with them.
	Inputs []Named
	// Outputs selects outputs by name (of pipeline.Info's TensorOutputs), in this
	// order; empty: all of them.
	Outputs []string
	// MaxRows caps the batch dimension of a model's inputs, as a batch's items are
	// capped; 0 means no cap.
	MaxRows int
	// KeepNote leaves ctx's route note (RouteNoteKey) as it is: a graph's member
	// calls run under the graph's request, whose note names the graph.
	KeepNote bool
}

// Inference is the result of an Infer call.
type Inference struct {
	Model, Version string
	Outputs        []Named
}

// Infer routes the request to a version and runs its tensors through that version's
// pipeline as tensors: the steps that act on tensors, the model, in the order of a
// prediction. A model that declares its inputs gets each row of the batch as an item,
// so concurrent requests to a batching version share one model call as /predict's
// do; the rows' outputs are stacked back along the batch dimension. Errors wrap
// ErrModelNotFound, ErrVersionNotFound, ErrLoading, ErrUnavailable, ErrInvalidTensor
// (as a *TensorError), pipeline.ErrInvalidInput (a step's, worded with the input and
// row) or pipeline.ErrExecution.
func (r *Registry) Infer(ctx context.Context, req InferRequest) (Inference, error) {
	route := r.traceRoute(ctx, req.Model, req.Version)
	h, err := r.hold(req.Model, req.Version, ModeInfer, 1)
	endRoute(route, h.v, err)
	if err != nil {
		return Inference{}, err
	}
	defer h.release()
	v, inst := h.v, h.inst
	if !req.KeepNote {
		noteRoute(ctx, req.Model, v.version)
	}
	observe := func(stage pipeline.Stage, d time.Duration) {
		r.obs.Stage(req.Model, v.version, stage, d)
		v.stats.stage(stage, d)
	}
	rows := 1
	outs, err := inst.infer(ctx, req, &rows, observe)
	r.settle(req.Model, h, ModeInfer, rows, err)
	if err != nil {
		return Inference{}, err
	}
	return Inference{Model: req.Model, Version: v.version, Outputs: outs}, nil
}

func (l *loaded) infer(ctx context.Context, req InferRequest, rows *int, observe pipeline.Observer) ([]Named, error) {
	if len(l.p.Info.Inputs) == 0 {
		return l.echo(ctx, req, observe)
	}
	ins := l.p.Info.TensorInputs
	// A tensor call names an input or two: found by a scan of them, not a map made
	// for every call.
	byName := func(name string) *tensor.Tensor {
		for _, in := range req.Inputs {
			if in.Name == name {
				return in.Tensor
			}
		}
		return nil
	}
	names := l.inNames
	for i, in := range req.Inputs {
		if !slices.Contains(names, in.Name) {
			return nil, &TensorError{Problem: UnknownInput, Name: in.Name, Known: names}
		}
		if slices.ContainsFunc(req.Inputs[:i], func(o Named) bool { return o.Name == in.Name }) {
			return nil, &TensorError{Problem: DuplicateInput, Name: in.Name}
		}
	}
	n := int64(-1)
	for _, want := range ins {
		t := byName(want.Name)
		if t == nil {
			return nil, &TensorError{Problem: MissingInput, Name: want.Name, Known: names}
		}
		if string(t.DType) != want.DType {
			return nil, &TensorError{Problem: WrongDType, Name: want.Name, DType: t.DType, WantDType: tensor.DType(want.DType)}
		}
		if !tensor.Compatible(want.Shape, t.Shape) || len(t.Shape) == 0 {
			return nil, &TensorError{Problem: WrongShape, Name: want.Name, Shape: t.Shape, WantShape: want.Shape}
		}
		if t.Shape[0] < 1 {
			return nil, &TensorError{Problem: EmptyBatch, Name: want.Name, Shape: t.Shape}
		}
		if n >= 0 && t.Shape[0] != n {
			return nil, &TensorError{Problem: BatchMismatch, Name: want.Name, Shape: t.Shape, WantShape: []int64{n}}
		}
		n = t.Shape[0]
	}
	selected, err := selectOutputs(req.Outputs, l.outNames)
	if err != nil {
		return nil, err
	}
	// inferd's models take one input (the ONNX backend refuses others at load), fed an
	// item per row: the rows of a request and of concurrent ones stack in one Run.
	if len(ins) != 1 {
		return nil, fmt.Errorf("%w: model %s %s declares %d inputs; tensor calls feed one", pipeline.ErrExecution, l.name, l.version, len(ins))
	}
	if req.MaxRows > 0 && n > int64(req.MaxRows) {
		return nil, fmt.Errorf("%w: input %q has %d rows (its batch dimension); at most %d are allowed", ErrTooManyRows, ins[0].Name, n, req.MaxRows)
	}
	*rows = int(n)
	if l.whole {
		return l.inferWhole(ctx, byName(ins[0].Name), selected, observe)
	}
	items := splitRows(byName(ins[0].Name))
	res, err := l.runTensors(ctx, items, observe)
	if err != nil {
		return nil, inRow(ins[0].Name, err)
	}
	out := make([]Named, 0, len(selected))
	for _, name := range selected {
		t, err := stackRows(res, name)
		if err != nil {
			return nil, fmt.Errorf("%w: model %s %s: output %q: %v", pipeline.ErrExecution, l.name, l.version, name, err)
		}
		out = append(out, Named{Name: name, Tensor: t})
	}
	return out, nil
}

// inferWhole runs a tensor call the model takes whole (loaded.whole): no rows to
// split, no outputs to stack back.
func (l *loaded) inferWhole(ctx context.Context, in *tensor.Tensor, selected []string, observe pipeline.Observer) ([]Named, error) {
	res, err := l.p.RunWhole(ctx, in, observe, l.callWhole, l.tracing)
	if err != nil {
		return nil, err
	}
	out, missing := pick(res, selected)
	if missing != "" {
		return nil, fmt.Errorf("%w: model %s %s answered without output %q", pipeline.ErrExecution, l.name, l.version, missing)
	}
	return out, nil
}

// pick is the tensors of answer named selected, in its order; missing is the first
// name answer lacks, "" when it has every one.
func pick(answer []Named, selected []string) (out []Named, missing string) {
	out = make([]Named, 0, len(selected))
	for _, name := range selected {
		k := slices.IndexFunc(answer, func(o Named) bool { return o.Name == name })
		if k < 0 {
			if missing == "" {
				missing = name
			}
			continue
		}
		out = append(out, answer[k])
	}
	return out, missing
}

// echo runs a model that declares no tensors (echo): the request's inputs are one item,
// and what the model returns is the answer.
func (l *loaded) echo(ctx context.Context, req InferRequest, observe pipeline.Observer) ([]Named, error) {
	names := make([]string, len(req.Inputs))
	for i, in := range req.Inputs {
		if slices.Contains(names[:i], in.Name) {
			return nil, &TensorError{Problem: DuplicateInput, Name: in.Name}
		}
		names[i] = in.Name
	}
	selected, err := selectOutputs(req.Outputs, names)
	if err != nil {
		return nil, err
	}
	res, err := l.runTensors(ctx, []any{slices.Clone(req.Inputs)}, observe)
	if err != nil {
		return nil, err
	}
	got, ok := res[0].([]Named)
	if !ok {
		return nil, fmt.Errorf("%w: model %s %s answered a %T to tensors", pipeline.ErrExecution, l.name, l.version, res[0])
	}
	// Every name selected is one of the request's, which echo answers: none missing.
	out, _ := pick(got, selected)
	return out, nil
}

// runTensors sends a tensor call's rows through the pipeline, through the batcher
// when there is one, as run does a prediction's items.
func (l *loaded) runTensors(ctx context.Context, items []any, observe pipeline.Observer) ([]any, error) {
	if l.batcher == nil {
		return l.p.RunTensors(ctx, items, observe, l.call, l.tracing)
	}
	return l.p.RunTensors(ctx, items, observe, l.batcher.Do, l.tracing)
}

// rowError is a step's input error in a tensor call, worded with the input and the
// row it is in: input "input"[3][1] is element [1] of row 3.
type rowError struct {
	err error
	msg string
}

func (e *rowError) Error() string { return e.msg }
func (e *rowError) Unwrap() error { return e.err }

// inRow words a step's input error (which names the row by its item index) with the
// call's input name; other errors pass unchanged.
func inRow(input string, err error) error {
	var ie *pipeline.InputError
	if !errors.As(err, &ie) {
		return err
	}
	return &rowError{err: err, msg: ie.In("input " + strconv.Quote(input) + "[" + strconv.Itoa(ie.Item) + "]")}
}

func tensorNames(ts []pipeline.Tensor) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// selectOutputs checks the requested outputs against the model's; none asked: all.
func selectOutputs(asked, known []string) ([]string, error) {
	if len(asked) == 0 {
		return known, nil
	}
	for _, name := range asked {
		if !slices.Contains(known, name) {
			return nil, &TensorError{Problem: UnknownOutput, Name: name, Known: known}
		}
	}
	return asked, nil
}
