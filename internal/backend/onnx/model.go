package onnx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
	ort "github.com/yalue/onnxruntime_go"
)

// ErrUnsupportedModel: the model file is valid ONNX, but its inputs or outputs are of
// a form inferd cannot serve.
var ErrUnsupportedModel = errors.New("unsupported model")

// ModelOptions configure one model. The zero value runs every batch in one Run.
type ModelOptions struct {
	// MaxBatchSize caps the items of one Run; a larger batch runs in chunks of this
	// size, one after the other, so a big request cannot make ONNX Runtime allocate
	// without bound. 0 means no cap.
	MaxBatchSize int
}

// Model is one ONNX Runtime session. Predict is safe for concurrent use: ONNX
// Runtime's Run is, and nothing here is mutated after Open.
type Model struct {
	name string // the artifact, for load-time errors, which operators read
	// label names the model in request-time errors, which reach clients: the last
	// parts of the path ("iris/v1/model.onnx"), never where the server keeps it.
	label   string
	size    int64
	input   ioInfo
	outputs []ioInfo
	// batched is true when the input's batch dimension is dynamic, so a batch can
	// stack into one Run; otherwise it is fixed at 1 and items run one by one.
	batched bool
	opts    ModelOptions

	mu      sync.RWMutex // Close waits for running Predicts
	closed  bool
	sess    *ort.DynamicAdvancedSession
	singles singles // the tensors of one-item Runs, kept for the next
}

type ioInfo struct {
	name  string
	dtype tensor.DType
	dims  []int64 // as declared, with the batch dimension
}

func (io ioInfo) describe(batch bool) pipeline.Tensor {
	dims := io.dims
	if !batch {
		dims = dims[1:]
	}
	return pipeline.Tensor{Name: io.name, DType: string(io.dtype), Shape: slices.Clone(dims)}
}

// Open reads an ONNX file and creates its session. The file is read once and handed
// to ONNX Runtime from memory, so its size is known exactly and a reload always sees
// the current file.
func (r *Runtime) Open(path string, opts ModelOptions) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return r.OpenBytes(path, data, opts)
}

// OpenBytes creates a session from an ONNX model in memory; name is used in errors.
func (r *Runtime) OpenBytes(name string, data []byte, opts ModelOptions) (*Model, error) {
	if err := r.Init(); err != nil {
		return nil, err
	}
	return r.openBytes(name, data, opts)
}

func (r *Runtime) openBytes(name string, data []byte, opts ModelOptions) (*Model, error) {
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a model ONNX Runtime can load: %w", name, err)
	}
	m := &Model{name: name, label: label(name), size: int64(len(data)), opts: opts}
	if err := m.describeInput(ins); err != nil {
		return nil, err
	}
	if err := m.describeOutputs(outs); err != nil {
		return nil, err
	}
	m.singles.fixed.Store(fixedShapes(append([]ioInfo{m.input}, m.outputs...)...))

	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("%s: session options: %w", name, err)
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(r.opts.IntraOpThreads); err != nil {
		return nil, fmt.Errorf("%s: session options: %w", name, err)
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("%s: session options: %w", name, err)
	}
	outNames := make([]string, len(m.outputs))
	for i, o := range m.outputs {
		outNames[i] = o.name
	}
	m.sess, err = ort.NewDynamicAdvancedSessionWithONNXData(data, []string{m.input.name}, outNames, so)
	if err != nil {
		return nil, fmt.Errorf("%s: creating the session: %w", name, err)
	}
	return m, nil
}

func (m *Model) describeInput(ins []ort.InputOutputInfo) error {
	if len(ins) != 1 {
		names := make([]string, len(ins))
		for i, in := range ins {
			names[i] = in.Name
		}
		return fmt.Errorf("%w: %s has %d inputs (%s); inferd feeds models with one input", ErrUnsupportedModel, m.name, len(ins), strings.Join(names, ", "))
	}
	in := ins[0]
	if in.OrtValueType != ort.ONNXTypeTensor {
		return fmt.Errorf("%w: %s: input %q is a %s, not a tensor", ErrUnsupportedModel, m.name, in.Name, in.OrtValueType)
	}
	d, ok := dtypeOf(in.DataType)
	if !ok || !slices.Contains(tensor.InputDTypes, d) {
		return fmt.Errorf("%w: %s: input %q takes %s; inferd feeds float32, float64, int32 and int64", ErrUnsupportedModel, m.name, in.Name, elemName(in.DataType))
	}
	dims := []int64(in.Dimensions)
	switch {
	case len(dims) == 0:
		return fmt.Errorf("%w: %s: input %q is a scalar; inferd needs a batch dimension first", ErrUnsupportedModel, m.name, in.Name)
	case dims[0] < 0:
		m.batched = true
	case dims[0] != 1:
		return fmt.Errorf("%w: %s: input %q has a fixed batch dimension of %d (shape %s); inferd needs -1 (any batch size) or 1", ErrUnsupportedModel, m.name, in.Name, dims[0], tensor.FormatShape(dims))
	}
	m.input = ioInfo{name: in.Name, dtype: d, dims: dims}
	return nil
}

// describeOutputs keeps the outputs inferd can carry. Others are left out of every
// Run rather than refusing the model: scikit-learn exports often add a ZipMap
// (sequence of maps) or string label output beside the tensor that matters.
func (m *Model) describeOutputs(outs []ort.InputOutputInfo) error {
	var skipped []string
	for _, o := range outs {
		d, ok := dtypeOf(o.DataType)
		if o.OrtValueType != ort.ONNXTypeTensor || !ok {
			skipped = append(skipped, o.Name)
			continue
		}
		if len(o.Dimensions) == 0 {
			return fmt.Errorf("%w: %s: output %q declares no batch dimension", ErrUnsupportedModel, m.name, o.Name)
		}
		m.outputs = append(m.outputs, ioInfo{name: o.Name, dtype: d, dims: []int64(o.Dimensions)})
	}
	if len(m.outputs) == 0 {
		return fmt.Errorf("%w: %s has no numeric tensor output (left out: %s)", ErrUnsupportedModel, m.name, strings.Join(skipped, ", "))
	}
	return nil
}

// Size is the size of the model file in bytes.
func (m *Model) Size() int64 { return m.size }

// Inputs describes the input as the model declares it, batch dimension first.
func (m *Model) Inputs() []pipeline.Tensor { return []pipeline.Tensor{m.input.describe(true)} }

// Outputs describes the outputs Predict returns, as the model declares them.
func (m *Model) Outputs() []pipeline.Tensor {
	out := make([]pipeline.Tensor, len(m.outputs))
	for i, o := range m.outputs {
		out[i] = o.describe(true)
	}
	return out
}

// ItemInputs is Inputs with the batch dimension left out: what one item must be.
func (m *Model) ItemInputs() []pipeline.Tensor { return []pipeline.Tensor{m.input.describe(false)} }

// ItemOutputs is Outputs with the batch dimension left out: what one item gets.
func (m *Model) ItemOutputs() []pipeline.Tensor {
	out := make([]pipeline.Tensor, len(m.outputs))
	for i, o := range m.outputs {
		out[i] = o.describe(false)
	}
	return out
}

// Predict runs a batch of *tensor.Tensor items and returns a tensor.Map per item.
func (m *Model) Predict(ctx context.Context, batch []any) ([]any, error) {
	items := make([]*tensor.Tensor, len(batch))
	item := m.input.dims[1:]
	same := true
	for i, v := range batch {
		t, ok := v.(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("%w: model %s: item %d is a %T, not a tensor; the preprocess steps must end in one", pipeline.ErrExecution, m.label, i, v)
		}
		if err := t.Check(); err != nil {
			return nil, fmt.Errorf("%w: model %s: item %d: %v", pipeline.ErrExecution, m.label, i, err)
		}
		if t.DType != m.input.dtype || !tensor.Compatible(item, t.Shape) {
			return nil, fmt.Errorf("%w: model %s: item %d is %s %s; input %q takes %s %s", pipeline.ErrExecution, m.label, i, t.DType, tensor.FormatShape(t.Shape), m.input.name, m.input.dtype, tensor.FormatShape(item))
		}
		same = same && (i == 0 || slices.Equal(t.Shape, items[0].Shape))
		items[i] = t
	}

	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, fmt.Errorf("%w: model %s is closed", pipeline.ErrExecution, m.label)
	}
	chunk := len(items)
	switch {
	case !m.batched || !same:
		// A fixed batch of 1, or dynamic dimensions that differ between items, so
		// the items cannot stack.
		chunk = 1
	case m.opts.MaxBatchSize > 0:
		chunk = min(chunk, m.opts.MaxBatchSize)
	}
	if chunk == len(items) {
		// One Run: its results are the answer, with no slice to gather them in.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return m.runItems(items)
	}
	out := make([]any, 0, len(items))
	for lo := 0; lo < len(items); lo += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := items[lo:min(lo+chunk, len(items))]
		res, err := m.runItems(part)
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
	}
	return out, nil
}

// Infer runs a tensor call whole (pipeline.TensorModel): in, batch dimension first,
// in one Run, its outputs answered whole, in the order of Outputs. A call whose rows
// cannot share one Run (a model whose batch dimension is fixed at 1, more rows than
// MaxBatchSize) runs as Predict runs items, and its outputs are stacked back.
func (m *Model) Infer(ctx context.Context, in *tensor.Tensor) ([]tensor.Named, error) {
	if err := in.Check(); err != nil {
		return nil, fmt.Errorf("%w: model %s: the input: %v", pipeline.ErrExecution, m.label, err)
	}
	// The rows may be more than a batch dimension fixed at 1 takes: they run apart.
	if in.DType != m.input.dtype || len(in.Shape) == 0 || !tensor.Compatible(m.input.dims[1:], in.Shape[1:]) || in.Shape[0] < 1 {
		return nil, fmt.Errorf("%w: model %s: the input is %s %s; input %q takes %s %s", pipeline.ErrExecution, m.label, in.DType, tensor.FormatShape(in.Shape), m.input.name, m.input.dtype, tensor.FormatShape(m.input.dims))
	}
	rows := in.Shape[0]
	if rows > 1 && (!m.batched || (m.opts.MaxBatchSize > 0 && rows > int64(m.opts.MaxBatchSize))) {
		return m.inferRows(ctx, in)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, fmt.Errorf("%w: model %s is closed", pipeline.ErrExecution, m.label)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	set, err := m.run([]*tensor.Tensor{in}, rows, in.Shape[1:])
	if err != nil {
		return nil, err
	}
	defer m.release(set)
	out := make([]tensor.Named, len(m.outputs))
	for j, o := range set.outs {
		var shape ort.Shape
		if set.shapes != nil {
			shape = set.shapes[j]
		} else {
			shape = o.GetShape()
		}
		if len(shape) == 0 || shape[0] != rows {
			return nil, fmt.Errorf("%w: model %s: output %q of shape %v has no batch dimension of %d", pipeline.ErrExecution, m.label, m.outputs[j].name, []int64(shape), rows)
		}
		t, err := whole(o, shape)
		if err != nil {
			return nil, fmt.Errorf("%w: model %s: output %q: %v", pipeline.ErrExecution, m.label, m.outputs[j].name, err)
		}
		out[j] = tensor.Named{Name: m.outputs[j].name, Tensor: t}
	}
	return out, nil
}

// inferRows is Infer for a call whose rows run apart: as Predict's items, each output
// stacked back along the batch dimension.
func (m *Model) inferRows(ctx context.Context, in *tensor.Tensor) ([]tensor.Named, error) {
	rows := in.Rows()
	items := make([]any, len(rows))
	for i, r := range rows {
		items[i] = r
	}
	res, err := m.Predict(ctx, items)
	if err != nil {
		return nil, err
	}
	out := make([]tensor.Named, len(m.outputs))
	for j, o := range m.outputs {
		for i, r := range res {
			rows[i] = r.(tensor.Map)[o.name]
		}
		t, err := tensor.Stack(rows)
		if err != nil {
			return nil, fmt.Errorf("%w: model %s: output %q: %v", pipeline.ErrExecution, m.label, o.name, err)
		}
		out[j] = tensor.Named{Name: o.name, Tensor: t}
	}
	return out, nil
}

// runItems is one session Run over items stacked on the batch dimension, answered
// per item.
func (m *Model) runItems(items []*tensor.Tensor) ([]any, error) {
	set, err := m.run(items, int64(len(items)), items[0].Shape)
	if err != nil {
		return nil, err
	}
	defer m.release(set)
	return m.results(set.outs, set.shapes, len(items))
}

// run is one session Run over an input of rows rows of shape item each, whose values
// are those of items one after the other; its outputs are the set's until release.
func (m *Model) run(items []*tensor.Tensor, rows int64, item []int64) (*runSet, error) {
	if rows == 1 && m.singles.fixed.Load() {
		if set, err := m.runSingle(items); err == nil || !errors.Is(err, errShapes) {
			return set, err
		}
	}
	in, err := stack(m.input.dtype, append(ort.Shape{rows}, item...), items)
	if err != nil {
		return nil, fmt.Errorf("%w: model %s: %v", pipeline.ErrExecution, m.label, err)
	}
	set := &runSet{in: in, outs: make([]ort.Value, len(m.outputs))} // nil outputs: ONNX Runtime allocates them
	if err := m.sess.Run([]ort.Value{set.in}, set.outs); err != nil {
		set.destroy()
		return nil, fmt.Errorf("%w: model %s: %v", pipeline.ErrExecution, m.label, err)
	}
	return set, nil
}

// release is done with a Run's set: a kept one (bound, see singles) is kept again.
func (m *Model) release(set *runSet) {
	if set.bind != nil {
		m.singles.give(set)
		return
	}
	set.destroy()
}

// errShapes: a Run into outputs of the declared shapes failed, which a model whose
// outputs are not the shapes it declares does.
var errShapes = errors.New("the outputs are not of their declared shapes")

// runSingle runs one row with a kept set of tensors, which release keeps again. A
// Run that fails with them is tried again once as any other (errShapes), and the
// model keeps no tensors from then on: its outputs may not be the shapes it declares.
func (m *Model) runSingle(items []*tensor.Tensor) (*runSet, error) {
	set, err := m.singles.take(m)
	if err != nil {
		return nil, fmt.Errorf("%w: model %s: %v", pipeline.ErrExecution, m.label, err)
	}
	if err := load(set.in, items); err != nil {
		set.destroy()
		return nil, fmt.Errorf("%w: model %s: %v", pipeline.ErrExecution, m.label, err)
	}
	if err := m.sess.RunWithBinding(set.bind); err != nil {
		set.destroy()
		m.singles.fixed.Store(false)
		return nil, errShapes
	}
	return set, nil
}

// results cuts each output of a Run of n items into one tensor.Map per item. shapes
// are the outputs' shapes where they are known (a kept set's), nil where each is to
// be asked.
func (m *Model) results(outs []ort.Value, shapes []ort.Shape, n int) ([]any, error) {
	res := make([]any, n)
	for i := range res {
		res[i] = make(tensor.Map, len(m.outputs))
	}
	// One slice of parts serves every output; a lone item's is on the stack.
	var one [1]*tensor.Tensor
	parts := one[:]
	if n != 1 {
		parts = make([]*tensor.Tensor, n)
	}
	for j, o := range outs {
		var shape ort.Shape
		if shapes != nil {
			shape = shapes[j]
		} else {
			shape = o.GetShape()
		}
		if err := split(o, shape, parts); err != nil {
			return nil, fmt.Errorf("%w: model %s: output %q: %v", pipeline.ErrExecution, m.label, m.outputs[j].name, err)
		}
		for i, p := range parts {
			res[i].(tensor.Map)[m.outputs[j].name] = p
		}
	}
	return res, nil
}

// Close destroys the session. It waits for running Predicts; later ones fail.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	m.singles.close()
	return m.sess.Destroy()
}

// label keeps the model, version and file parts of an artifact path.
func label(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	if len(parts) > 3 {
		parts = parts[len(parts)-3:]
	}
	return strings.Join(parts, "/")
}
