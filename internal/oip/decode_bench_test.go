package oip

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// BenchmarkDecode reads a whole JSON request holding a 1 MB FP32 tensor, as the
// harness spells it, flat and as rows of 512: the check of the text with the
// decoding of its data.
func BenchmarkDecode(b *testing.B) {
	const n, row = 1 << 18, 512
	for _, nested := range []bool{false, true} {
		shape, open, close := fmt.Sprintf("[1,%d]", n), "", ""
		if nested {
			shape, open, close = fmt.Sprintf("[%d,%d]", n/row, row), "[", "]"
		}
		body := []byte(`{"id":"bench","inputs":[{"name":"x","shape":` + shape + `,"datatype":"FP32","data":[` + open)
		for i := range n {
			if i > 0 && i%row == 0 && nested {
				body = append(body, "],["...)
			} else if i > 0 {
				body = append(body, ',')
			}
			body = strconv.AppendFloat(body, float64(float32(math.Sin(float64(i))*100)), 'g', -1, 32)
		}
		body = append(body, close+`]}]}`...)
		name := "flat"
		if nested {
			name = "rows"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(body, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
