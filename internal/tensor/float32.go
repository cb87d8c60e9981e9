package tensor

import (
	"math"
	"math/big"
	"math/bits"
	"sync"
	"sync/atomic"
)

// A megabyte of FP32 output is a quarter of a million numbers, and strconv spent about
// half of a JSON echo's CPU spelling them: its shortest formatting is general over
// float32 and float64, 'e', 'f' and 'g', and goes through a digit buffer of its own.
// AppendFloat32 is the one case JSON needs, written straight into the output, after
// Giulietti's Schubfach ("The Schubfach way to render doubles", 2020) for 32 bits:
//
// A finite float32 v is c·2^q. The decimals that read back as v are those in its
// rounding interval, half an ulp either side (a quarter below a power of two, where
// the spacing below is half that above), ends included when c is even. Scaled by
// 10^-k, with k chosen so that the interval is between 1 and 10 units wide, the
// interval holds at most one multiple of ten and at least one integer: the multiple
// of ten, when there is one, is the shortest spelling; else the integer nearest v
// (ties to even) is the nearest of the shortest. The scaled bounds are products of a
// 27-bit integer and a 64-bit approximation of 10^-k, compared with integers after
// rounding to odd, which keeps whether the product was an integer.
//
// This is strconv's answer for every finite float32: TestAppendFloat32 checks a
// sample of them in every go test, make check-float32 all 2^32 bit patterns.

// scale32 scales the interval of a float32 of one binary exponent q.
type scale32 struct {
	// g is 10^-k·2^(63-floor(log2 10^-k)) rounded up: a 64-bit integer with its top bit
	// set.
	g uint64
	// k is the power of ten of one unit of the scaled interval.
	k int
	// shift is what a bound, in quarters of 2^q, is shifted left by so that its product
	// with g has the bound's integer part, in quarters of 10^k, as its high word.
	shift uint
}

// minExp32 is the binary exponent q of every subnormal float32 and the smallest normal
// ones; maxExp32 that of the largest.
const (
	minExp32 = -149
	maxExp32 = 254 - 150
)

// scaleTable32 holds, for each q from minExp32, the scale of the regular interval,
// [0], and of the interval at a power of two, [1].
type scaleTable32 [maxExp32 - minExp32 + 1][2]scale32

// The table is made on first use: exact arithmetic takes about 2 ms and 37k
// allocations, which every process importing the package (inferctl too) would pay at
// start for a table few of them read. It is read through an atomic pointer rather
// than sync.OnceValue's function, whose call was 5% of formatting a value.
var (
	scales32Table atomic.Pointer[scaleTable32]
	scales32Once  sync.Once
)

// scales32 is the table, made by the first caller.
func scales32() *scaleTable32 {
	if t := scales32Table.Load(); t != nil {
		return t
	}
	return makeScales32()
}

func makeScales32() *scaleTable32 {
	scales32Once.Do(func() {
		var s scaleTable32
		for q := minExp32; q <= maxExp32; q++ {
			for irregular := range 2 {
				s[q-minExp32][irregular] = newScale32(q, irregular == 1)
			}
		}
		scales32Table.Store(&s)
	})
	return scales32Table.Load()
}

// newScale32 computes a scale exactly; a power of two's interval is three quarters of
// an ulp wide.
func newScale32(q int, irregular bool) scale32 {
	width := new(big.Rat).SetFrac(big.NewInt(1), big.NewInt(1))
	if irregular {
		width.SetFrac64(3, 4)
	}
	width.Mul(width, pow2Rat(q))
	// k = floor(log10(width)): the scaled width is in [1, 10).
	k := int(math.Floor(float64(q) * math.Log10(2)))
	for pow10Rat(k).Cmp(width) > 0 {
		k--
	}
	for pow10Rat(k+1).Cmp(width) <= 0 {
		k++
	}
	m := pow10Rat(-k)
	// beta = floor(log2(m)).
	beta := m.Num().BitLen() - m.Denom().BitLen()
	if pow2Rat(beta).Cmp(m) > 0 {
		beta--
	}
	if pow2Rat(beta+1).Cmp(m) <= 0 {
		beta++
	}
	// g = ceil(m·2^(63-beta)).
	scaled := new(big.Rat).Mul(m, pow2Rat(63-beta))
	g, rem := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
	if rem.Sign() != 0 {
		g.Add(g, big.NewInt(1))
	}
	// A bound B (in quarters of 2^q) scaled is B·2^(q-2)·10^-k in units, B·2^q·10^-k in
	// quarters of a unit, = B·g·2^(q+beta-63) = (B<<shift)·g / 2^64.
	shift := q + beta + 1
	if g.BitLen() != 64 || shift < 0 || shift > 5 {
		panic("tensor: float32 scale out of range") // a mistake here, not in any input
	}
	return scale32{g: g.Uint64(), k: k, shift: uint(shift)}
}

func pow2Rat(e int) *big.Rat {
	if e >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
}

func pow10Rat(e int) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(e, -e))), nil)
	if e >= 0 {
		return new(big.Rat).SetInt(p)
	}
	return new(big.Rat).SetFrac(big.NewInt(1), p)
}

// roundOdd returns the scaled bound (b<<shift)·g/2^64 rounded down, with its lowest bit
// set when it was not an integer. The fraction's low 32 bits are dropped: g exceeds the
// exact factor by less than one, so an integer's product exceeds it by less than 2^31
// there.
func roundOdd(g, b uint64) uint64 {
	hi, lo := bits.Mul64(g, b)
	return hi | (lo>>32+(1<<32-1))>>32
}

// shortest32 returns the shortest decimal d·10^k that reads back as the positive
// finite float32 with these bits (sign cleared), the nearest of them to it, with d
// free of trailing zeros.
func shortest32(fbits uint32) (d uint64, k int) {
	exp := int(fbits >> 23)
	c := uint64(fbits & (1<<23 - 1))
	q := minExp32
	irregular := 0
	if exp > 0 {
		if c == 0 && exp > 1 {
			irregular = 1
		}
		c |= 1 << 23
		q = exp - 150
	}
	sc := &scales32()[q-minExp32][irregular]
	k = sc.k
	cb := c << 2
	cbl := cb - 2 + uint64(irregular)
	cbr := cb + 2
	vb := roundOdd(sc.g, cb<<sc.shift)
	vbl := roundOdd(sc.g, cbl<<sc.shift)
	vbr := roundOdd(sc.g, cbr<<sc.shift)
	// out excludes the ends of the interval of an odd c, which read back as its even
	// neighbours.
	out := c & 1
	s := vb >> 2
	if s >= 10 {
		// A multiple of ten has a digit fewer than any other integer of the interval.
		sp10 := s / 10 * 10
		tp10 := sp10 + 10
		upin := vbl+out <= sp10<<2
		wpin := tp10<<2+out <= vbr
		if upin != wpin {
			d = tp10
			if upin {
				d = sp10
			}
			return trimZeros(d, k)
		}
	}
	t := s + 1
	uin := vbl+out <= s<<2
	win := t<<2+out <= vbr
	switch {
	case uin && !win:
		d = s
	case win && !uin:
		d = t
	default:
		// Both in: the nearer; of two as near, the even one, but the larger at a power
		// of two, as strconv picks (its Dragonbox rounds up there).
		mid := s<<2 + 2
		if vb < mid || vb == mid && s&1 == 0 && irregular == 0 {
			d = s
		} else {
			d = t
		}
	}
	return trimZeros(d, k)
}

func trimZeros(d uint64, k int) (uint64, int) {
	for d%10 == 0 {
		d /= 10
		k++
	}
	return d, k
}

// digitPairs spells 00 to 99, two bytes each.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// AppendFloat32 appends finite f as AppendFloat(b, float64(f), 32, nil) does:
// strconv's shortest spelling in 'f' form, or in 'e' form below 1e-6 and from 1e21 on
// with a negative exponent's leading zero dropped (as encoding/json writes floats).
// Its result for NaN and infinities means nothing; AppendFloat checks for them.
func AppendFloat32(b []byte, f float32) []byte {
	fbits := math.Float32bits(f)
	if fbits>>31 != 0 {
		b = append(b, '-')
		fbits &^= 1 << 31
	}
	if fbits == 0 {
		return append(b, '0')
	}
	d, k := shortest32(fbits)
	// The digits of d, at most 9, two at a time from the end.
	var buf [10]byte
	i := len(buf)
	for d >= 100 {
		r := d % 100
		d /= 100
		i -= 2
		buf[i], buf[i+1] = digitPairs[2*r], digitPairs[2*r+1]
	}
	if d >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[2*d], digitPairs[2*d+1]
	} else {
		i--
		buf[i] = byte('0' + d)
	}
	digits := buf[i:]
	n := len(digits)
	exp10 := n - 1 + k // the value is digits[0].digits[1:] × 10^exp10
	if abs := math.Float32frombits(fbits); abs < 1e-6 || abs >= 1e21 {
		b = append(b, digits[0])
		if n > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if exp10 < 0 {
			b = append(b, '-')
			exp10 = -exp10
		} else {
			b = append(b, '+')
		}
		if exp10 >= 10 {
			return append(b, digitPairs[2*exp10], digitPairs[2*exp10+1])
		}
		if b[len(b)-1] == '+' {
			b = append(b, '0') // e+07, as strconv writes: only e-07 loses its zero
		}
		return append(b, byte('0'+exp10))
	}
	switch {
	case exp10 < 0:
		b = append(b, "0."...)
		for range -exp10 - 1 {
			b = append(b, '0')
		}
		return append(b, digits...)
	case exp10+1 >= n:
		b = append(b, digits...)
		for range exp10 + 1 - n {
			b = append(b, '0')
		}
		return b
	}
	b = append(b, digits[:exp10+1]...)
	b = append(b, '.')
	return append(b, digits[exp10+1:]...)
}
