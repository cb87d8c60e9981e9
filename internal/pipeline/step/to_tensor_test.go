package step

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/inferd/inferd/internal/tensor"
)

// TestToTensorFlatArrays: the fast read of a flat array of numbers takes the common
// forms, and gives what the JSON tree gives, to the bit; anything it does not take
// (a malformed number, a missing comma, a count or range error) goes to the tree,
// which words the error as before.
func TestToTensorFlatArrays(t *testing.T) {
	tests := []struct {
		name  string
		dtype tensor.DType
		raw   string
		fast  bool // the fast read takes it
	}{
		{"plain", tensor.Float32, `[5.1,3.5,1.4,0.2]`, true},
		{"whitespace", tensor.Float32, " [ 1 , 2,\n3 ,\t4 ] \n", true},
		{"exponents and signs", tensor.Float32, `[-0,0.5e-3,1E+2,3.4e38]`, true},
		{"underflow", tensor.Float32, `[1e-50,2,3,4]`, true},
		{"float64 beyond float32", tensor.Float64, `[1e39,-1e300,0.1,2]`, true},
		{"integers", tensor.Float64, `[0,16,-7,12345678901234567890]`, true},

		{"missing comma", tensor.Float32, `[1 2,3,4]`, false},
		{"trailing comma", tensor.Float32, `[1,2,3,4,]`, false},
		{"too few", tensor.Float32, `[1,2,3]`, false},
		{"too many", tensor.Float32, `[1,2,3,4,5]`, false},
		{"empty", tensor.Float32, `[]`, false},
		{"leading zero", tensor.Float32, `[01,2,3,4]`, false},
		{"bare fraction", tensor.Float32, `[.5,1,2,3]`, false},
		{"bare point", tensor.Float32, `[1.,2,3,4]`, false},
		{"bare exponent", tensor.Float32, `[1e,2,3,4]`, false},
		{"plus sign", tensor.Float32, `[+1,2,3,4]`, false},
		{"lone minus", tensor.Float32, `[-,1,2,3]`, false},
		{"NaN", tensor.Float32, `[NaN,1,2,3]`, false},
		{"trailing text", tensor.Float32, `[1,2,3,4]x`, false},
		{"extra bracket", tensor.Float32, `[1,2,3,4]]`, false},
		{"string", tensor.Float32, `[1,"2",3,4]`, false},
		{"nested", tensor.Float32, `[[1],2,3,4]`, false},
		{"float32 overflow", tensor.Float32, `[1,2,3,1e39]`, false},
		{"float64 overflow", tensor.Float64, `[1,2,3,1e400]`, false},
		{"object", tensor.Float32, `{"a":1}`, false},
		{"nothing", tensor.Float32, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &toTensor{dtype: tt.dtype, shape: []int64{4}}
			vals, ok := s.flatFloats([]byte(tt.raw))
			if ok != tt.fast {
				t.Fatalf("fast read took it: %v, want %v", ok, tt.fast)
			}
			slow, err := s.decode(json.RawMessage(tt.raw))
			if !ok {
				got, gotErr := s.convert(json.RawMessage(tt.raw))
				if (err == nil) != (gotErr == nil) || (err != nil && err.Error() != gotErr.Error()) {
					t.Fatalf("convert: %v, decode: %v", gotErr, err)
				}
				if err == nil && !sameFloats(got.Float, slow.Float) {
					t.Fatalf("convert %v, decode %v", got.Float, slow.Float)
				}
				return
			}
			if err != nil {
				t.Fatalf("the fast read took what decode refuses: %v", err)
			}
			if !sameFloats(vals, slow.Float) {
				t.Errorf("fast %v, decode %v", vals, slow.Float)
			}
		})
	}
}

// sameFloats compares bit for bit, so -0 and 0 differ.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
