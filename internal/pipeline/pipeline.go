package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/inferd/inferd/internal/telemetry"
	"github.com/inferd/inferd/internal/tensor"
)

// Step transforms a batch of values, one per item, before or after the model.
// Implementations must return a batch of the same length and order, and treat each
// item on its own: an item's value may not depend on the others in its batch
// (RunEachWith runs items alone to find the ones a step refuses).
type Step interface {
	// Name is the step's name in a model config, e.g. "standardize".
	Name() string
	Apply(ctx context.Context, batch []any) ([]any, error)
}

// Model is the runtime stage of a pipeline: one call for the whole batch.
type Model interface {
	Predict(ctx context.Context, batch []any) ([]any, error)
	// Close releases the runtime's resources (an ONNX session, say). It is called once,
	// after the last request that used the model has finished.
	Close() error
}

// TensorModel is a Model that also takes a tensor call whole: in has the batch
// dimension first, and the answer is the model's outputs for all its rows, batch
// dimension first, in the order of Info.Outputs. A tensor call to a pipeline with no
// tensor steps goes to it as it came (RunWhole): no split into rows, no stacking back.
type TensorModel interface {
	Model
	Infer(ctx context.Context, in *tensor.Tensor) ([]tensor.Named, error)
}

// InferFunc is the model stage of a whole tensor call (RunWhole).
type InferFunc func(ctx context.Context, in *tensor.Tensor) ([]tensor.Named, error)

// Stage names a part of a pipeline in metrics.
type Stage string

// The stages of every pipeline.
const (
	StagePreprocess  Stage = "preprocess"
	StageModel       Stage = "model"
	StagePostprocess Stage = "postprocess"
)

// Observer is told how long each stage of a run took.
type Observer func(stage Stage, d time.Duration)

// Pipeline is preprocess -> model -> postprocess over a batch.
type Pipeline struct {
	Pre   []Step
	Model Model
	Post  []Step
	// TensorPre and TensorPost are the steps of a tensor call (RunTensors): Pre and
	// Post as they act on tensors, without what only a JSON request has (to_tensor's
	// reading of it, top_k's ranking, label_map's names); see package step.
	TensorPre, TensorPost []Step
	// Info describes the pipeline for metadata endpoints.
	Info Info
	// Batching is what the model's configuration asks of dynamic batching.
	Batching Batching
}

// Info describes a loaded pipeline.
type Info struct {
	Description string
	// ArtifactBytes is the size of the files the pipeline read from disk.
	ArtifactBytes int64
	// Inputs and Outputs are the tensors the model file declares, batch dimension
	// first; none for a model of raw JSON items (echo).
	Inputs  []Tensor
	Outputs []Tensor
	// TensorInputs and TensorOutputs are the tensors a tensor call sends and gets back,
	// batch dimension first: the model's as TensorPre and TensorPost leave them (the
	// tensor to_tensor makes, the one the postprocess steps leave).
	TensorInputs, TensorOutputs []Tensor
	// MaxBatchSize caps the items of one model call (larger batches run in chunks); 0:
	// no cap.
	MaxBatchSize int
	// Platform and Runtime name the model's kind and runtime as Triton's metadata and
	// configuration do ("xgboost_json", "xgboost"); "" for the defaults of a model
	// with tensors (ONNX Runtime's) or without (echo).
	Platform, Runtime string
}

// Tensor describes a model input or output as the model file declares it; -1 in Shape
// is a dimension of any size.
type Tensor struct {
	Name  string
	DType string
	Shape []int64
}

// Batching is how a pipeline's model calls may be coalesced across requests; the zero
// value is off.
type Batching struct {
	// Enabled coalesces concurrent requests into one model call.
	Enabled bool
	// MaxSize caps the items of one coalesced call; 0 means no cap.
	MaxSize int
	// MaxQueueDelay is how long queued requests may wait for company once the model is
	// busy; a request that finds the model idle runs at once.
	MaxQueueDelay time.Duration
	// MaxCalls is how many coalesced calls may run at once; 0 means 1.
	MaxCalls int
}

// PredictFunc is the model stage of a run: the model's Predict, or a batcher that
// shares one model call between requests.
type PredictFunc func(ctx context.Context, batch []any) ([]any, error)

// Run sends items through every stage. The items arrive as raw JSON and the results
// leave as raw JSON: a value no step touches comes back byte for byte. A panic in any
// stage is returned as an ErrExecution error, so one bad request cannot take the
// process down.
func (p *Pipeline) Run(ctx context.Context, items []json.RawMessage, observe Observer) ([]json.RawMessage, error) {
	return p.RunWith(ctx, items, observe, p.Model.Predict, nil)
}

// RunWith is Run with the model stage done by predict, so the items of this run can
// share a model call with other runs' while preprocessing (where invalid input is
// found) and postprocessing stay this run's own. tr, when not nil, gives each stage a
// span.
func (p *Pipeline) RunWith(ctx context.Context, items []json.RawMessage, observe Observer, predict PredictFunc, tr *Tracing) (out []json.RawMessage, err error) {
	defer Recover(&err)
	batch := make([]any, len(items))
	for i, it := range items {
		batch[i] = it
	}
	if batch, err = run(ctx, p.Pre, p.Post, batch, observe, predict, tr); err != nil {
		return nil, err
	}
	return encode(batch)
}

// RunTensors is RunWith for a tensor call: items are the rows of the call's tensor
// (a *tensor.Tensor each, without the batch dimension), and they go through
// TensorPre, the model and TensorPost. Each result is a row's outputs: a tensor.Map
// of the model's when the pipeline has no postprocess steps, else the *tensor.Tensor
// the steps leave. A model of raw JSON items (echo) gets the items as they are.
func (p *Pipeline) RunTensors(ctx context.Context, items []any, observe Observer, predict PredictFunc, tr *Tracing) (out []any, err error) {
	defer Recover(&err)
	return run(ctx, p.TensorPre, p.TensorPost, items, observe, predict, tr)
}

// Whole says whether a tensor call can go to the model whole (RunWhole): the model is
// a TensorModel and no tensor step needs the call's rows apart.
func (p *Pipeline) Whole() bool {
	_, ok := p.Model.(TensorModel)
	return ok && len(p.TensorPre) == 0 && len(p.TensorPost) == 0
}

// RunWhole is RunTensors for a pipeline that Whole says may take the call whole: in,
// batch dimension first, goes to infer as it is, and every output it answers must
// have in's rows. A panic is an ErrExecution error, as in Run.
func (p *Pipeline) RunWhole(ctx context.Context, in *tensor.Tensor, observe Observer, infer InferFunc, tr *Tracing) (out []tensor.Named, err error) {
	defer Recover(&err)
	rows := in.Shape[0]
	mctx, span := tr.start(ctx, StageModel, nil, int(rows))
	start := time.Now()
	out, err = infer(mctx, in)
	if observe != nil {
		observe(StageModel, time.Since(start))
	}
	if err != nil {
		err = classify(StageModel, "model", err)
	}
	for _, o := range out {
		if err == nil && (o.Tensor == nil || len(o.Tensor.Shape) == 0 || o.Tensor.Shape[0] != rows) {
			err = fmt.Errorf("%w: model stage answered output %q without the call's %d rows", ErrExecution, o.Name, rows)
		}
	}
	telemetry.End(span, err)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// run sends batch through pre, the model stage (predict) and post. Each stage's
// clock starts where the one before stopped: a run reads the clock once per stage and
// once at its start, not twice per stage.
func run(ctx context.Context, pre, post []Step, batch []any, observe Observer, predict PredictFunc, tr *Tracing) (_ []any, err error) {
	if observe == nil {
		observe = func(Stage, time.Duration) {}
	}
	n := len(batch)
	start := time.Now()
	if batch, start, err = runSteps(ctx, StagePreprocess, pre, batch, observe, tr, start); err != nil {
		return nil, err
	}
	mctx, span := tr.start(ctx, StageModel, nil, n)
	batch, err = predict(mctx, batch)
	end := time.Now()
	observe(StageModel, end.Sub(start))
	if err != nil {
		err = classify(StageModel, "model", err)
	} else {
		err = checkLen(StageModel, "model", n, len(batch))
	}
	telemetry.End(span, err)
	if err != nil {
		return nil, err
	}
	batch, _, err = runSteps(ctx, StagePostprocess, post, batch, observe, tr, end)
	return batch, err
}

// runSteps runs a stage's steps, timed from start; end is when it finished (start for
// a stage of no steps).
func runSteps(ctx context.Context, stage Stage, steps []Step, batch []any, observe Observer, tr *Tracing, start time.Time) (_ []any, end time.Time, err error) {
	if len(steps) == 0 {
		return batch, start, nil
	}
	ctx, span := tr.start(ctx, stage, steps, len(batch))
	batch, err = applySteps(ctx, stage, steps, batch)
	end = time.Now()
	observe(stage, end.Sub(start))
	telemetry.End(span, err)
	return batch, end, err
}

func applySteps(ctx context.Context, stage Stage, steps []Step, batch []any) ([]any, error) {
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := len(batch)
		var err error
		if batch, err = s.Apply(ctx, batch); err != nil {
			return nil, classify(stage, s.Name(), err)
		}
		if err := checkLen(stage, s.Name(), n, len(batch)); err != nil {
			return nil, err
		}
	}
	return batch, nil
}

// classify marks every failure that is not the input's fault as ErrExecution, naming
// the stage, so callers can tell a client's mistake from a broken model.
func classify(stage Stage, name string, err error) error {
	if errors.Is(err, ErrInvalidInput) || errors.Is(err, ErrExecution) {
		return err
	}
	return fmt.Errorf("%w: %s %q: %w", ErrExecution, stage, name, err)
}

// checkLen guards the invariant that keeps batch results in item order.
func checkLen(stage Stage, name string, want, got int) error {
	if want != got {
		return fmt.Errorf("%w: %s %q returned %d values for %d items", ErrExecution, stage, name, got, want)
	}
	return nil
}

// encode writes each result as JSON. A result with NaN or an infinity has no JSON
// spelling; finite inputs only get there when they are too large for the arithmetic of
// the steps or the model (1e308 standardised, 3e38 through float32 weights), so it is
// the input's fault and a 400, not an execution error.
func encode(batch []any) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(batch))
	for i, v := range batch {
		if raw, ok := v.(json.RawMessage); ok {
			out[i] = raw
			continue
		}
		var b []byte
		var err error
		if m, ok := v.(json.Marshaler); ok {
			// The catalogue's result types (tensors, rankings, labels) write compact,
			// escaped JSON themselves: json.Marshal would only scan it all again.
			b, err = m.MarshalJSON()
		} else {
			b, err = json.Marshal(v)
		}
		if errors.Is(err, tensor.ErrNotFinite) {
			return nil, AtItem(i, Invalid("", "the result is not a finite number: the input is too large for the model's arithmetic; send values of the size the model was trained on"))
		}
		if err != nil {
			return nil, fmt.Errorf("%w: encoding result %d: %v", ErrExecution, i, err)
		}
		out[i] = b
	}
	return out, nil
}

// StepInfo describes a configured step for model metadata.
type StepInfo struct {
	Name string
	// Params are the step's parameters as configured (a struct with json tags), or nil.
	Params any
}

// parameterized is a step that can say how it was configured.
type parameterized interface {
	Params() any
}

// Steps describes the preprocess and postprocess steps, in order.
func (p *Pipeline) Steps() (pre, post []StepInfo) {
	describe := func(steps []Step) []StepInfo {
		out := make([]StepInfo, len(steps))
		for i, s := range steps {
			out[i].Name = s.Name()
			if ps, ok := s.(parameterized); ok {
				out[i].Params = ps.Params()
			}
		}
		return out
	}
	return describe(p.Pre), describe(p.Post)
}

// Close closes the model.
func (p *Pipeline) Close() error {
	if p.Model == nil {
		return nil
	}
	return p.Model.Close()
}
