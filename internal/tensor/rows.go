package tensor

import (
	"fmt"
	"slices"
)

// Rows cuts t, batch dimension first, into its n rows. The rows share t's values.
func (t *Tensor) Rows() []*Tensor {
	if len(t.Shape) == 0 {
		return nil
	}
	rows := make([]*Tensor, t.Shape[0])
	for i := range rows {
		rows[i] = t.Row(i)
	}
	return rows
}

// Row is row i of t along its batch dimension, sharing its values, capped at the
// row's end; t has at least i+1 rows.
func (t *Tensor) Row(i int) *Tensor {
	row := t.Shape[1:]
	size := int(Size(row))
	lo, hi := i*size, (i+1)*size
	r := &Tensor{DType: t.DType, Shape: row}
	switch {
	case t.DType == Bytes:
		r.Bytes = t.Bytes[lo:hi:hi]
	case t.F32 != nil:
		r.F32 = t.F32[lo:hi:hi]
	case t.DType.IsFloat():
		r.Float = t.Float[lo:hi:hi]
	default:
		r.Int = t.Int[lo:hi:hi]
	}
	return r
}

// Stack stacks rows of one dtype and shape along a new batch dimension, first. The
// values are copied, but for a single row, whose values the result shares: capped at
// their length, so that an append to the result copies them rather than writing past
// the row, and nil where the row's are empty, as appending leaves them. float32
// values stay float32s when every row holds them so.
func Stack(rows []*Tensor) (*Tensor, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows to stack")
	}
	first := rows[0]
	out := batchOf(first.DType, int64(len(rows)), first.Shape)
	f32 := true
	for i, r := range rows {
		if r.DType != first.DType || !slices.Equal(r.Shape, first.Shape) {
			return nil, fmt.Errorf("row %d is %s %s, row 0 %s %s: rows of different shapes do not stack", i, r.DType, FormatShape(r.Shape), first.DType, FormatShape(first.Shape))
		}
		f32 = f32 && (r.F32 != nil || r.Len() == 0)
	}
	if len(rows) == 1 {
		out.Float, out.F32, out.Int, out.Bytes = capped(first.Float), capped(first.F32), capped(first.Int), capped(first.Bytes)
		return out, nil
	}
	size := int(Size(first.Shape)) * len(rows)
	switch {
	case first.DType == Bytes:
		out.Bytes = make([][]byte, 0, size)
	case first.DType.IsFloat() && f32:
		out.F32 = make([]float32, 0, size)
	case first.DType.IsFloat():
		out.Float = make([]float64, 0, size)
	default:
		out.Int = make([]int64, 0, size)
	}
	for _, r := range rows {
		switch {
		case out.Bytes != nil:
			out.Bytes = append(out.Bytes, r.Bytes...)
		case out.F32 != nil:
			out.F32 = append(out.F32, r.F32...)
		case out.Float != nil:
			out.Float = append(out.Float, r.Floats()...)
		default:
			out.Int = append(out.Int, r.Int...)
		}
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

// shaped is a tensor with room for its shape beside it, so that a stacked tensor of a
// few dimensions, made on every tensor call, is one allocation rather than two.
type shaped struct {
	t    Tensor
	dims [4]int64
}

// batchOf is an empty tensor of dtype d and shape [n, item...].
func batchOf(d DType, n int64, item []int64) *Tensor {
	if len(item) >= len(shaped{}.dims) {
		return &Tensor{DType: d, Shape: append([]int64{n}, item...)}
	}
	s := &shaped{t: Tensor{DType: d}}
	s.dims[0] = n
	copy(s.dims[1:], item)
	s.t.Shape = s.dims[: 1+len(item) : 1+len(item)]
	return &s.t
}
