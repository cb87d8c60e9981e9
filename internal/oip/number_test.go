package oip

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/inferd/inferd/internal/jsonscan"
	"github.com/inferd/inferd/internal/tensor"
)

// sameAsStrconv checks fastFloat against strconv.ParseFloat on one JSON number: where
// fastFloat decides, it must give strconv's value to the bit (the sign of zero too)
// and end where the number does.
func sameAsStrconv(t *testing.T, tok string, bits int) (decided bool) {
	t.Helper()
	v, end, ok := fastFloat([]byte(tok+","), 0, bits)
	if end != len(tok) {
		t.Errorf("%s as %d bits: ends at %d, want %d", tok, bits, end, len(tok))
	}
	if !ok {
		return false
	}
	want, err := strconv.ParseFloat(tok, bits)
	if err != nil {
		t.Errorf("%s as %d bits: fastFloat decided %v where strconv fails: %v", tok, bits, v, err)
		return true
	}
	if math.Float64bits(v) != math.Float64bits(want) {
		t.Errorf("%s as %d bits: fastFloat %v (%#x), strconv %v (%#x)", tok, bits, v, math.Float64bits(v), want, math.Float64bits(want))
	}
	return true
}

func TestFastFloat(t *testing.T) {
	tests := []struct {
		tok    string
		decide bool // at both widths
	}{
		{"0", true}, {"-0", true}, {"0.0", true}, {"-0.0e5", true}, {"1", true}, {"-1", true},
		{"5.1", true}, {"3.5", true}, {"0.2", true}, {"-84.147095", true}, {"90.929745", true},
		{"1e22", true}, {"1E-22", true}, {"123456789e-5", true}, {"0.000001", true}, {"1.5e+3", true},
		{"9007199254740992", true}, // 2^53, the largest mantissa taken
		{"9007199254740993", false},
		{"1e23", false}, {"1e-23", false}, {"1e400", false}, {"-1e-400", false},
		{"12345678901234567890", false}, // 20 significant digits
		{"0.00000000000000000000000000001", false},
		{"3.4028235e38", false}, {"1.17549435e-38", false}, {"1.4e-45", false},
	}
	for _, tt := range tests {
		t.Run(tt.tok, func(t *testing.T) {
			for _, bits := range []int{32, 64} {
				if got := sameAsStrconv(t, tt.tok, bits); got != tt.decide {
					t.Errorf("as %d bits: decided %v, want %v", bits, got, tt.decide)
				}
			}
		})
	}
	t.Run("FP32 halfway between two float32s goes to strconv", func(t *testing.T) {
		// 2^24+1 lies exactly between float32's 2^24 and 2^24+2; 16777217.5 does not.
		if sameAsStrconv(t, "16777217", 32) {
			t.Error("16777217 decided as FP32: it is a tie, which strconv breaks to even")
		}
		if !sameAsStrconv(t, "16777217.5", 32) {
			t.Error("16777217.5 left to strconv")
		}
	})
	t.Run("random numbers", func(t *testing.T) {
		r := rand.New(rand.NewPCG(29, 1))
		decided := 0
		for range 200_000 {
			tok := randomNumber(r)
			if !jsonscan.Valid([]byte(tok)) {
				t.Fatalf("%s is not a JSON number", tok)
			}
			for _, bits := range []int{32, 64} {
				if sameAsStrconv(t, tok, bits) {
					decided++
				}
			}
		}
		if decided < 200_000 { // of 400k: most fall in the fast path's range
			t.Errorf("only %d of 400000 decided", decided)
		}
	})
	t.Run("FP32 near ties", func(t *testing.T) {
		r := rand.New(rand.NewPCG(29, 2))
		for range 100_000 {
			a := math.Float32frombits(r.Uint32N(0x7f000000))
			mid := (float64(a) + float64(math.Nextafter32(a, math.MaxFloat32))) / 2
			for _, tok := range []string{
				strconv.FormatFloat(mid, 'g', -1, 64), strconv.FormatFloat(mid, 'e', 15, 64),
				strconv.FormatFloat(mid, 'e', 8, 64), strconv.FormatFloat(float64(a), 'g', -1, 32),
			} {
				sameAsStrconv(t, tok, 32)
			}
		}
	})
}

// randomNumber spells a JSON number the way tensors are sent: up to 20 digits with a
// point anywhere, sometimes an exponent, sometimes leading zeros.
func randomNumber(r *rand.Rand) string {
	var b []byte
	if r.IntN(2) == 0 {
		b = append(b, '-')
	}
	n := 1 + r.IntN(20)
	digits := make([]byte, n)
	for i := range digits {
		digits[i] = byte('0' + r.IntN(10))
	}
	if n > 1 && digits[0] == '0' {
		digits[0] = byte('1' + r.IntN(9))
	}
	if r.IntN(4) == 0 {
		b = append(b, "0."...)
		b = append(b, make0s(r.IntN(8))...)
		b = append(b, digits...)
	} else {
		point := 1 + r.IntN(n)
		b = append(b, digits[:point]...)
		if point < n {
			b = append(b, '.')
			b = append(b, digits[point:]...)
		}
	}
	if r.IntN(3) == 0 {
		b = append(b, "eE"[r.IntN(2)])
		b = append(b, []string{"", "+", "-"}[r.IntN(3)]...)
		b = strconv.AppendInt(b, int64(r.IntN(40)), 10)
	}
	return string(b)
}

func make0s(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return b
}

// FuzzFastFloat: on any JSON number, fastFloat agrees with strconv where it decides.
func FuzzFastFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", "5.1", "16777217", "1e22", "9007199254740993", "0.1e-21", "1.00000005960464477539"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		if jsonscan.NumberEnd([]byte(tok), 0) != len(tok) {
			return
		}
		sameAsStrconv(t, tok, 32)
		sameAsStrconv(t, tok, 64)
	})
}

// BenchmarkDecodeData reads the data of a 1 MB FP32 tensor from JSON, as the harness
// spells it: the decoding alone, without the check of the JSON text.
func BenchmarkDecodeData(b *testing.B) {
	const n = 1 << 18
	data := []byte{'['}
	for i := range n {
		if i > 0 {
			data = append(data, ',')
		}
		data = strconv.AppendFloat(data, float64(float32(math.Sin(float64(i))*100)), 'g', -1, 32)
	}
	data = append(data, ']')
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		tt := &tensor.Tensor{DType: tensor.Float32, Shape: []int64{n}}
		if err := decodeData("x", tt, n, data); err != nil {
			b.Fatal(err)
		}
	}
}
