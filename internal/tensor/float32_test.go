package tensor

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// allFloat32 makes TestAppendFloat32All check every one of the 2^32 bit patterns
// (make check-float32); without it, the test checks the sample that
// TestAppendFloat32 does not.
var allFloat32 = flag.Bool("float32.all", false, "check AppendFloat32 against strconv for all 2^32 float32 bit patterns")

// reference32 is AppendFloat's spelling of a float32 before AppendFloat32: strconv's
// shortest, 'e' below 1e-6 and from 1e21, e-09 cleaned up to e-9.
func reference32(b []byte, f float32) []byte {
	format := byte('f')
	if abs := float32(math.Abs(float64(f))); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, float64(f), format, -1, 32)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// check32 compares AppendFloat32 with the reference for the bit pattern u, skipping
// NaNs and infinities, which AppendFloat handles before.
func check32(u uint32, got, want []byte) ([]byte, []byte, error) {
	f := math.Float32frombits(u)
	if u&0x7f800000 == 0x7f800000 {
		return got, want, nil
	}
	got = AppendFloat32(got[:0], f)
	want = reference32(want[:0], f)
	if string(got) != string(want) {
		return got, want, fmt.Errorf("bits %#08x: AppendFloat32 = %s, strconv %s", u, got, want)
	}
	return got, want, nil
}

// samples32 are the bit patterns worth checking in every run: both ends of every
// binade and of the subnormals, the float32s nearest each power of ten and each
// boundary of the 'e' form, a stride through all patterns and random ones.
func samples32() []uint32 {
	var s []uint32
	for exp := uint32(0); exp < 255; exp++ {
		for _, frac := range []uint32{0, 1, 2, 3, 1<<22 - 1, 1 << 22, 1<<22 + 1, 1<<23 - 2, 1<<23 - 1} {
			s = append(s, exp<<23|frac)
		}
	}
	for e := -46; e <= 39; e++ {
		p := float32(math.Pow(10, float64(e)))
		for _, f := range []float32{p, 2 * p, 5 * p, 9.999999 * p, 1.0000001 * p} {
			u := math.Float32bits(f)
			for d := uint32(0); d < 5; d++ {
				s = append(s, u-d, u+d)
			}
		}
	}
	for _, f := range []float32{1e-6, 1e21, 16777216, 3.4028235e38, math.SmallestNonzeroFloat32, 0.1, 0.2, 0.3, 1.0 / 3} {
		u := math.Float32bits(f)
		for d := uint32(0); d < 5; d++ {
			s = append(s, u-d, u+d)
		}
	}
	const stride = 1<<32/(1<<19) + 1 // half a million patterns, odd to vary the low bits
	for u := uint64(0); u < 1<<32; u += stride {
		s = append(s, uint32(u))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 18 {
		s = append(s, r.Uint32())
	}
	n := len(s)
	for _, u := range s[:n] {
		s = append(s, u|1<<31) // and their negatives
	}
	return s
}

func TestAppendFloat32(t *testing.T) {
	tests := []struct {
		f    float32
		want string
	}{
		{0, "0"},
		{float32(math.Copysign(0, -1)), "-0"},
		{1, "1"},
		{0.1, "0.1"},
		{-2.5, "-2.5"},
		{1e-6, "0.000001"},
		{9.999999e-7, "9.999999e-7"},
		{1e-7, "1e-7"},
		{1.5e-10, "1.5e-10"},
		{1e21, "1e+21"},
		{123456789, "123456790"},
		{16777216, "16777216"},
		{3.4028235e38, "3.4028235e+38"},
		{math.SmallestNonzeroFloat32, "1e-45"},
		{1.1754942e-38, "1.1754942e-38"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := AppendFloat32(nil, tt.f); string(got) != tt.want {
				t.Errorf("AppendFloat32(%v) = %s, want %s", tt.f, got, tt.want)
			}
			if got := reference32(nil, tt.f); string(got) != tt.want {
				t.Errorf("reference32(%v) = %s, want %s", tt.f, got, tt.want)
			}
		})
	}
	t.Run("sample", func(t *testing.T) {
		var got, want []byte
		var err error
		failed := 0
		for _, u := range samples32() {
			if got, want, err = check32(u, got, want); err != nil {
				t.Error(err)
				if failed++; failed == 20 {
					t.Fatal("too many differences")
				}
			}
		}
	})
}

// TestAppendFloat32All checks every float32 against strconv, in minutes, sharded over
// the CPUs: run by make check-float32.
func TestAppendFloat32All(t *testing.T) {
	if !*allFloat32 {
		t.Skip("checks all 2^32 float32s with -float32.all (make check-float32); TestAppendFloat32 checks a sample")
	}
	const shards = 1 << 12
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var got, want []byte
			var err error
			for {
				shard := next.Add(1) - 1
				if shard >= shards || failed.Load() >= 20 {
					return
				}
				first := uint64(shard) << 32 / shards
				for u := first; u < first+1<<32/shards; u++ {
					if got, want, err = check32(uint32(u), got, want); err != nil {
						mu.Lock()
						t.Error(err)
						mu.Unlock()
						failed.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() == 0 {
		t.Logf("AppendFloat32 matches strconv on all %d finite float32s", 1<<32-2*(1<<23))
	}
}

func FuzzAppendFloat32(f *testing.F) {
	for _, u := range []uint32{0, 1, 0x00800000, 0x3f800000, 0x7f7fffff, 0x358637bd, 0x80000001} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, u uint32) {
		if _, _, err := check32(u, nil, nil); err != nil {
			t.Error(err)
		}
	})
}

// BenchmarkAppendFloat32 spells the FP32 values of the harness's 1 MB tensor, each
// way.
func BenchmarkAppendFloat32(b *testing.B) {
	vals := make([]float32, 1<<12)
	for i := range vals {
		vals[i] = float32(math.Sin(float64(i))) * 100
	}
	for _, bench := range []struct {
		name string
		fn   func([]byte, float32) []byte
	}{
		{"schubfach", AppendFloat32},
		{"strconv", reference32},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 16*len(vals))
			for b.Loop() {
				buf = buf[:0]
				for _, v := range vals {
					buf = bench.fn(buf, v)
					buf = append(buf, ',')
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(vals)), "ns/value")
		})
	}
}
