package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// member is one model version of the test: its tensors, and what a call computes.
type member struct {
	sig graph.Signature
	fn  func(ctx context.Context, ins tensor.Map) (tensor.Map, error)
}

// fleet is both the Members a graph is checked against and the Caller it runs
// with, as the registry will be: members by "model" (its routed version) or
// "model/version".
type fleet struct {
	mu      sync.Mutex
	members map[string]member
	calls   map[string]int
}

var errNoMember = errors.New("no such member")

func (f *fleet) Signature(model, version string) (graph.Signature, error) {
	m, ok := f.members[key(model, version)]
	if !ok {
		return graph.Signature{}, fmt.Errorf("%w: %s", errNoMember, key(model, version))
	}
	return m.sig, nil
}

func (f *fleet) Call(ctx context.Context, c graph.Call) ([]tensor.Named, error) {
	model, version, ins := c.Model, c.Version, c.Inputs
	m, ok := f.members[key(model, version)]
	if !ok {
		return nil, errNoMember
	}
	f.mu.Lock()
	f.calls[key(model, version)]++
	f.mu.Unlock()
	outs, err := m.fn(ctx, asMap(ins))
	if err != nil {
		return nil, err
	}
	// Answered as the registry answers: the asked outputs in their order, an absent
	// one without its name.
	answer := make([]tensor.Named, len(c.Outputs))
	for k, name := range c.Outputs {
		if t, ok := outs[name]; ok {
			answer[k] = tensor.Named{Name: name, Tensor: t}
		}
	}
	return answer, nil
}

// asMap and named turn a run's tensors into a map by name and back, for tests that
// build and read them by name.
func asMap(ts []tensor.Named) tensor.Map {
	if ts == nil {
		return nil
	}
	m := make(tensor.Map, len(ts))
	for _, t := range ts {
		m[t.Name] = t.Tensor
	}
	return m
}

func named(m tensor.Map) []tensor.Named {
	out := make([]tensor.Named, 0, len(m))
	for name, t := range m {
		out = append(out, tensor.Named{Name: name, Tensor: t})
	}
	return out
}

// runMap is g.Run with its request and answer by name.
func runMap(ctx context.Context, g *graph.Graph, in tensor.Map, f graph.Caller, observe graph.Observer) (tensor.Map, error) {
	out, err := g.Run(ctx, named(in), f, observe)
	return asMap(out), err
}

func (f *fleet) called(k string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[k]
}

func key(model, version string) string {
	if version == "" {
		return model
	}
	return model + "/" + version
}

func f64(name string, shape ...int64) pipeline.Tensor {
	return pipeline.Tensor{Name: name, DType: "float64", Shape: shape}
}

func sig(ins, outs []pipeline.Tensor) graph.Signature {
	return graph.Signature{Inputs: ins, Outputs: outs}
}

// elementwise is a member computing out[i] = op(in[i]) over input x, output y.
func elementwise(op func(float64) float64) member {
	return member{
		sig: sig([]pipeline.Tensor{f64("x", -1, 3)}, []pipeline.Tensor{f64("y", -1, 3)}),
		fn: func(_ context.Context, ins tensor.Map) (tensor.Map, error) {
			x := ins["x"]
			y := make([]float64, x.Len())
			for i := range y {
				y[i] = op(x.At(i))
			}
			return tensor.Map{"y": tensor.NewFloat(tensor.Float64, x.Shape, y)}, nil
		},
	}
}

// newFleet is the members every test may use.
func newFleet() *fleet {
	add := member{
		sig: sig([]pipeline.Tensor{f64("a", -1, 3), f64("b", -1, 3)}, []pipeline.Tensor{f64("sum", -1, 3)}),
		fn: func(_ context.Context, ins tensor.Map) (tensor.Map, error) {
			a, b := ins["a"], ins["b"]
			s := make([]float64, a.Len())
			for i := range s {
				s[i] = a.At(i) + b.At(i)
			}
			return tensor.Map{"sum": tensor.NewFloat(tensor.Float64, a.Shape, s)}, nil
		},
	}
	label := member{
		sig: sig([]pipeline.Tensor{f64("x", -1, 3)}, []pipeline.Tensor{{Name: "label", DType: "int64", Shape: []int64{-1}}}),
		fn: func(_ context.Context, ins tensor.Map) (tensor.Map, error) {
			x := ins["x"]
			rows := int(x.Shape[0])
			out := make([]int64, rows)
			for r := range rows {
				for k := 1; k < 3; k++ {
					if x.At(r*3+k) > x.At(r*3+int(out[r])) {
						out[r] = int64(k)
					}
				}
			}
			return tensor.Map{"label": tensor.NewInt(tensor.Int64, []int64{int64(rows)}, out)}, nil
		},
	}
	iris := func(out string) member {
		return member{sig: sig([]pipeline.Tensor{{Name: "input", DType: "float32", Shape: []int64{-1, 4}}}, []pipeline.Tensor{f64(out, -1, 3)})}
	}
	return &fleet{
		calls: map[string]int{},
		members: map[string]member{
			"double":  elementwise(func(v float64) float64 { return 2 * v }),
			"inc":     elementwise(func(v float64) float64 { return v + 1 }),
			"square":  elementwise(func(v float64) float64 { return v * v }),
			"add":     add,
			"label":   label,
			"iris/v1": iris("logits"),
			"iris/v2": iris("probabilities"),
			"iris":    iris("probabilities"),
			"echo":    {sig: graph.Signature{}},
			"fail": {
				sig: elementwise(nil).sig,
				fn: func(context.Context, tensor.Map) (tensor.Map, error) {
					return nil, errMemberDown
				},
			},
		},
	}
}

var errMemberDown = errors.New("member unavailable")

func tensorShape(s []int64) string { return tensor.FormatShape(s) }
