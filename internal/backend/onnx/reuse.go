package onnx

import (
	"slices"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"
)

// maxSpareSingles bounds the tensor sets kept for reuse: one per one-item Run that
// can be in progress at once, on a machine of a few cores.
const maxSpareSingles = 8

// runSet is the tensors of one Run: the stacked input, and the outputs, which are
// nil where ONNX Runtime is to allocate them. A kept set (singles) also has them
// bound to the session once (bind), so that its Runs pass no tensors: the session's
// Run makes two slices and a value per tensor on the Go heap on every call, the
// binding's Run nothing.
type runSet struct {
	in   ort.Value
	outs []ort.Value
	bind *ort.IoBinding
	// shapes are the outputs' shapes, which a kept set's are known to be.
	shapes []ort.Shape
}

func (s *runSet) destroy() {
	if s.bind != nil {
		s.bind.Destroy()
	}
	if s.in != nil {
		s.in.Destroy()
	}
	for _, o := range s.outs {
		if o != nil {
			o.Destroy()
		}
	}
}

// singles keeps the tensors of one-item Runs for the next one. A lone request's Run is
// where the runtime's own work is smallest, and making its tensors weighs most:
// ONNX Runtime's allocation of an output costs five cgo calls and a copy, and the
// tensors are destroyed after, a tenth of an iris request's CPU. Only a model whose
// input and outputs have fixed shapes but for the batch dimension keeps them
// (fixed, false otherwise), so a kept set fits every one-item Run.
type singles struct {
	fixed atomic.Bool
	mu    sync.Mutex
	spare []*runSet
}

// fixedShapes says whether every dimension past the batch one is fixed.
func fixedShapes(ios ...ioInfo) bool {
	for _, io := range ios {
		if slices.ContainsFunc(io.dims[1:], func(d int64) bool { return d <= 0 }) {
			return false
		}
	}
	return true
}

// take returns a set for a one-item Run, a kept one or a new one with every output
// allocated.
func (s *singles) take(m *Model) (*runSet, error) {
	s.mu.Lock()
	if n := len(s.spare); n > 0 {
		set := s.spare[n-1]
		s.spare = s.spare[:n-1]
		s.mu.Unlock()
		return set, nil
	}
	s.mu.Unlock()
	set := &runSet{outs: make([]ort.Value, len(m.outputs)), shapes: make([]ort.Shape, len(m.outputs))}
	if err := set.fill(m); err != nil {
		set.destroy()
		return nil, err
	}
	return set, nil
}

// fill allocates a one-item set's tensors and binds them to m's session.
func (s *runSet) fill(m *Model) error {
	var err error
	if s.in, err = newTensor(m.input.dtype, oneItem(m.input.dims)); err != nil {
		return err
	}
	for i, o := range m.outputs {
		s.shapes[i] = oneItem(o.dims)
		if s.outs[i], err = newTensor(o.dtype, s.shapes[i]); err != nil {
			return err
		}
	}
	if s.bind, err = m.sess.CreateIoBinding(); err != nil {
		return err
	}
	if err := s.bind.BindInput(m.input.name, s.in); err != nil {
		return err
	}
	for i, o := range m.outputs {
		if err := s.bind.BindOutput(o.name, s.outs[i]); err != nil {
			return err
		}
	}
	return nil
}

// give keeps set for the next one-item Run, or destroys it when enough are kept.
func (s *singles) give(set *runSet) {
	s.mu.Lock()
	if len(s.spare) < maxSpareSingles {
		s.spare = append(s.spare, set)
		set = nil
	}
	s.mu.Unlock()
	if set != nil {
		set.destroy()
	}
}

// close destroys the kept sets; the model's Close calls it once no Run is left.
func (s *singles) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, set := range s.spare {
		set.destroy()
	}
	s.spare = nil
}

// oneItem is the shape of one item of a tensor declared with dims.
func oneItem(dims []int64) ort.Shape { return append(ort.Shape{1}, dims[1:]...) }
