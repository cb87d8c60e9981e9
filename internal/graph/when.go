package graph

import "github.com/inferd/inferd/internal/tensor"

// holds reports whether c holds for t: for at least one row, the statistic of that
// row's elements meets every comparison. A batch's rows are decided together, so one
// doubtful row runs the step for the whole batch.
func holds(c *Condition, t *tensor.Tensor) bool {
	rows := 1
	if len(t.Shape) > 0 {
		rows = int(t.Shape[0])
	}
	if rows == 0 {
		return false
	}
	width := t.Len() / rows
	for r := range rows {
		if width == 0 {
			continue
		}
		best, at := t.At(r*width), 0
		for k := 1; k < width; k++ {
			v := t.At(r*width + k)
			if c.Stat == StatMin && v < best || c.Stat != StatMin && v > best {
				best, at = v, k
			}
		}
		x := best
		if c.Stat == StatArgmax {
			x = float64(at)
		}
		if (c.Below == nil || x < *c.Below) && (c.Above == nil || x > *c.Above) && (c.Equals == nil || x == *c.Equals) {
			return true
		}
	}
	return false
}
