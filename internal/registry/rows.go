package registry

import (
	"fmt"
	"slices"

	"github.com/inferd/inferd/internal/tensor"
)

// splitRows cuts t along its batch dimension into its items, which share its values.
func splitRows(t *tensor.Tensor) []any {
	rows := t.Rows()
	items := make([]any, len(rows))
	for i, r := range rows {
		items[i] = r
	}
	return items
}

// rowOutput is output name of a row's result: of its tensor.Map of the model's
// outputs, or the *tensor.Tensor the postprocess steps left, which is the one output.
func rowOutput(r any, name string) *tensor.Tensor {
	switch v := r.(type) {
	case tensor.Map:
		return v[name]
	case *tensor.Tensor:
		return v
	}
	return nil
}

// stackRows stacks output name of every row's result along a new batch dimension.
func stackRows(res []any, name string) (*tensor.Tensor, error) {
	var out *tensor.Tensor
	// float32s stay so when every row holds them; rows that differ are widened.
	f32 := true
	for _, r := range res {
		if t := rowOutput(r, name); t != nil && t.F32 == nil && t.Len() > 0 {
			f32 = false
		}
	}
	for i, r := range res {
		t := rowOutput(r, name)
		if t == nil {
			return nil, fmt.Errorf("row %d (a %T) has no such output", i, r)
		}
		if out == nil {
			out = &tensor.Tensor{DType: t.DType, Shape: append([]int64{int64(len(res))}, t.Shape...)}
		} else if t.DType != out.DType || !slices.Equal(t.Shape, out.Shape[1:]) {
			return nil, fmt.Errorf("row %d is %s %s, row 0 %s %s: rows of different shapes do not stack", i, t.DType, tensor.FormatShape(t.Shape), out.DType, tensor.FormatShape(out.Shape[1:]))
		}
		if len(res) == 1 {
			// One row is the whole output: its values are taken as they are, not
			// copied, as the model made them for this call alone. Capped, so that an
			// append copies them; empty ones stay nil, as appending leaves them.
			out.Float, out.F32, out.Int, out.Bytes = capped(t.Float), capped(t.F32), capped(t.Int), capped(t.Bytes)
			break
		}
		switch {
		case f32:
			out.F32 = append(out.F32, t.F32...)
		case t.DType.IsFloat():
			out.Float = append(out.Float, t.Floats()...)
		}
		out.Int = append(out.Int, t.Int...)
		out.Bytes = append(out.Bytes, t.Bytes...)
	}
	return out, nil
}

// capped is s without room past its length, or nil when it is empty.
func capped[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s[:len(s):len(s)]
}
