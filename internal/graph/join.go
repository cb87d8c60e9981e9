package graph

import (
	"fmt"
	"slices"

	"github.com/inferd/inferd/internal/tensor"
)

func runJoin(n *node, request []tensor.Named, res []result, mine *result) error {
	j := n.join
	var ts []*tensor.Tensor
	for _, r := range n.refs {
		t, ok := value(r, request, res)
		if !ok {
			continue // only a pick's sources may be absent (Check)
		}
		if j.Op == JoinPick {
			mine.outs, mine.present = []tensor.Named{{Tensor: t}}, true
			return nil
		}
		ts = append(ts, t)
	}
	if j.Op == JoinPick {
		return nil // nothing to pick: absent, as its sources are
	}
	var out *tensor.Tensor
	var err error
	switch j.Op {
	case JoinMean:
		out, err = mean(ts, nil)
	case JoinWeightedMean:
		out, err = mean(ts, j.Weights)
	case JoinConcat:
		out, err = concat(ts, j.Axis)
	}
	if err != nil {
		return fmt.Errorf("%w: join %q: %v", ErrExecution, n.name, err)
	}
	mine.outs, mine.present = []tensor.Named{{Tensor: out}}, true
	return nil
}

// mean is the element-wise mean of tensors of one shape, weighted when weights are
// given. It computes in float64 and rounds to float32 for a float32 result.
func mean(ts []*tensor.Tensor, weights []float64) (*tensor.Tensor, error) {
	first := ts[0]
	sum := make([]float64, first.Len())
	total := 0.0
	for i, t := range ts {
		if !slices.Equal(t.Shape, first.Shape) {
			return nil, fmt.Errorf("source %d has shape %s, source 0 %s", i, tensor.FormatShape(t.Shape), tensor.FormatShape(first.Shape))
		}
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		total += w
		for k := range sum {
			sum[k] += w * t.At(k)
		}
	}
	for k := range sum {
		sum[k] /= total
		if first.DType == tensor.Float32 {
			sum[k] = float64(float32(sum[k]))
		}
	}
	return tensor.NewFloat(first.DType, slices.Clone(first.Shape), sum), nil
}

// concat joins tensors along axis; their other dimensions are equal.
func concat(ts []*tensor.Tensor, axis int) (*tensor.Tensor, error) {
	first := ts[0]
	shape := slices.Clone(first.Shape)
	shape[axis] = 0
	for i, t := range ts {
		if len(t.Shape) != len(first.Shape) {
			return nil, fmt.Errorf("source %d has shape %s, source 0 %s", i, tensor.FormatShape(t.Shape), tensor.FormatShape(first.Shape))
		}
		for d := range shape {
			if d != axis && t.Shape[d] != first.Shape[d] {
				return nil, fmt.Errorf("source %d has shape %s, source 0 %s: only axis %d may differ", i, tensor.FormatShape(t.Shape), tensor.FormatShape(first.Shape), axis)
			}
		}
		shape[axis] += t.Shape[axis]
	}
	outer := tensor.Size(first.Shape[:axis])
	inner := tensor.Size(first.Shape[axis+1:])
	isFloat := first.DType.IsFloat()
	var floats []float64
	var ints []int64
	for o := range outer {
		for _, t := range ts {
			width := t.Shape[axis] * inner
			for k := o * width; k < (o+1)*width; k++ {
				if isFloat {
					floats = append(floats, t.At(int(k)))
				} else {
					ints = append(ints, t.Int[k])
				}
			}
		}
	}
	if isFloat {
		return tensor.NewFloat(first.DType, shape, floats), nil
	}
	return tensor.NewInt(first.DType, shape, ints), nil
}
