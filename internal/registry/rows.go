package registry

import (
	"fmt"

	"github.com/inferd/inferd/internal/tensor"
)

// splitRows cuts t along its batch dimension into its items, which share its values.
func splitRows(t *tensor.Tensor) []any {
	if t.Shape[0] == 1 { // the usual request: no slice of rows on the way
		return []any{t.Row(0)}
	}
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

// stackRows stacks output name of every row's result along a new batch dimension
// (tensor.Stack).
func stackRows(res []any, name string) (*tensor.Tensor, error) {
	var one [1]*tensor.Tensor // a request of one row, the usual one, allocates no slice
	rows := one[:0]
	if len(res) > 1 {
		rows = make([]*tensor.Tensor, 0, len(res))
	}
	for i, r := range res {
		t := rowOutput(r, name)
		if t == nil {
			return nil, fmt.Errorf("row %d (a %T) has no such output", i, r)
		}
		rows = append(rows, t)
	}
	return tensor.Stack(rows)
}
