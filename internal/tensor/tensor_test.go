package tensor

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestMarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		t       *Tensor
		want    string
		wantErr error
	}{
		{"scalar", NewFloat(Float64, nil, []float64{2.5}), `2.5`, nil},
		{"vector", NewInt(Int64, []int64{3}, []int64{1, -2, 9007199254740993}), `[1,-2,9007199254740993]`, nil},
		{"matrix", NewFloat(Float64, []int64{2, 2}, []float64{1, 2, 3, 4}), `[[1,2],[3,4]]`, nil},
		{"empty", NewFloat(Float32, []int64{0}, []float64{}), `[]`, nil},
		{"float32 shortest", NewFloat(Float32, []int64{3}, []float64{float64(float32(0.1)), float64(float32(1e-7)), float64(float32(3e38))}), `[0.1,1e-7,3e+38]`, nil},
		{"float64 like encoding/json", NewFloat(Float64, []int64{4}, []float64{0.1, 1e-7, 1e21, 123456789}), `[0.1,1e-7,1e+21,123456789]`, nil},
		{"bool", NewInt(Bool, []int64{2}, []int64{1, 0}), `[true,false]`, nil},
		{"NaN", NewFloat(Float64, []int64{1}, []float64{math.NaN()}), "", ErrNotFinite},
		{"infinity", NewFloat(Float32, nil, []float64{math.Inf(1)}), "", ErrNotFinite},
		{"float32s", NewFloat32([]int64{3}, []float32{0.1, 1e-7, 3e38}), `[0.1,1e-7,3e+38]`, nil},
		{"float32s, infinity", NewFloat32(nil, []float32{float32(math.Inf(-1))}), "", ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.t)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestMarshalMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, -0.5, 1e-6, 9.99e-7, 1e20, 1e21, 123.456, -1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		want, _ := json.Marshal(f)
		got, err := AppendFloat(nil, f, 64, nil)
		if err != nil || string(got) != string(want) {
			t.Errorf("AppendFloat(%g) = %s, %v; want %s", f, got, err, want)
		}
		want32, _ := json.Marshal(float32(f))
		if !math.IsInf(float64(float32(f)), 0) {
			got32, err := AppendFloat(nil, float64(float32(f)), 32, nil)
			if err != nil || string(got32) != string(want32) {
				t.Errorf("AppendFloat(float32 %g) = %s, %v; want %s", f, got32, err, want32)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		t    *Tensor
		ok   bool
	}{
		{"ok", NewFloat(Float32, []int64{2}, []float64{1, 2}), true},
		{"count", NewFloat(Float32, []int64{3}, []float64{1, 2}), false},
		{"family", &Tensor{DType: Int64, Shape: []int64{1}, Int: []int64{1}, Float: []float64{1}}, false},
		{"float32s", NewFloat32([]int64{2}, []float32{1, 2}), true},
		{"float32s, count", NewFloat32([]int64{3}, []float32{1, 2}), false},
		{"float32s beside float64s", &Tensor{DType: Float32, Shape: []int64{1}, F32: []float32{1}, Float: []float64{1}}, false},
		{"float32s of a FP64 tensor", &Tensor{DType: Float64, Shape: []int64{1}, F32: []float32{1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.t.Check(); (err == nil) != tt.ok {
				t.Fatalf("Check = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// A Float32 tensor reads the same whichever way it holds its values.
func TestFloat32Storage(t *testing.T) {
	values := []float32{0.1, -2.5, 3e38, 1e-45}
	widened := make([]float64, len(values))
	for i, v := range values {
		widened[i] = float64(v)
	}
	f32, f64 := NewFloat32([]int64{4}, values), NewFloat(Float32, []int64{4}, widened)
	if f32.Len() != f64.Len() {
		t.Fatalf("Len %d, widened %d", f32.Len(), f64.Len())
	}
	for i := range widened {
		if f32.At(i) != f64.At(i) || f32.Floats()[i] != widened[i] {
			t.Errorf("element %d: At %v, Floats %v; widened %v", i, f32.At(i), f32.Floats()[i], widened[i])
		}
	}
	a, errA := json.Marshal(f32)
	b, errB := json.Marshal(f64)
	if errA != nil || errB != nil || string(a) != string(b) {
		t.Errorf("MarshalJSON %s, %v; widened %s, %v", a, errA, b, errB)
	}
}

func TestInRange(t *testing.T) {
	tests := []struct {
		d    DType
		v    float64
		want bool
	}{
		{Int32, 2147483647, true},
		{Int32, 2147483648, false},
		{Int32, -2147483648, true},
		{Int64, 9.223372036854775e18, true},
		{Int64, 9.223372036854775807e18, false}, // rounds to 2^63
		{Uint8, -1, false},
		{Bool, 2, false},
		{Float32, 3.4e38, true},
		{Float32, 3.5e38, false},
		{Float64, math.Inf(1), false},
	}
	for _, tt := range tests {
		t.Run(string(tt.d), func(t *testing.T) {
			if got := tt.d.InRange(tt.v); got != tt.want {
				t.Fatalf("%s.InRange(%g) = %v, want %v", tt.d, tt.v, got, tt.want)
			}
		})
	}
}

func TestShapes(t *testing.T) {
	tests := []struct {
		name      string
		want, got []int64
		ok        bool
	}{
		{"equal", []int64{4}, []int64{4}, true},
		{"dynamic", []int64{-1, 3}, []int64{7, 3}, true},
		{"rank", []int64{4}, []int64{4, 1}, false},
		{"size", []int64{4}, []int64{3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if Compatible(tt.want, tt.got) != tt.ok {
				t.Fatalf("Compatible(%v, %v) != %v", tt.want, tt.got, tt.ok)
			}
		})
	}
	if s := FormatShape([]int64{-1, 3}); s != "[-1,3]" {
		t.Errorf("FormatShape = %s", s)
	}
	if Size([]int64{2, 3}) != 6 || Size(nil) != 1 || Static([]int64{-1}) {
		t.Error("Size or Static")
	}
}
