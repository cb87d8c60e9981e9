package oip

import "math"

// Tensor data is mostly numbers: a megabyte of FP32 is a quarter of a million of them.
// strconv.ParseFloat reads each from a string, checking for underscores, hex and
// infinities JSON never holds, after decodeData has found the token's end in a pass of
// its own. fastFloat reads a JSON number once, straight from the body, and decides it
// exactly where Clinger's fast path does; anything else goes to strconv, which stays
// the reference (TestFastFloat, FuzzFastFloat).

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat reads the JSON number that starts raw[i] (raw is valid JSON, so the number
// follows the grammar) and returns where it ends, and its value rounded to a float of
// bits (32 or 64) as strconv.ParseFloat(…, bits) would, with ok set, when it can decide
// that value exactly. With ok false the value is left to strconv: more than 19
// digits (leading zeros counted), a mantissa past 2^53, a power of ten past 10^22, or
// an FP32 value that rounds to float64 exactly between two float32s.
//
// raw need not be valid JSON: end is -1 when the text at raw[i] does not follow the
// grammar up to where the number ends, so that decodeData checks tensor data in the
// pass that reads it (jsonscan.CheckDeferring leaves it).
func fastFloat(raw []byte, i, bits int) (v float64, end int, ok bool) {
	j := i
	neg := raw[j] == '-'
	if neg {
		j++
	}
	// Every digit goes into mant, leading zeros too (they add nothing): up to 19 of
	// them fit a uint64 whatever they are, and more are left to strconv.
	var mant uint64
	first := j
	for ; j < len(raw); j++ {
		d := raw[j] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	digits, exp := j-first, 0 // digits read; the power of ten mant stands at
	if digits == 0 || digits > 1 && raw[first] == '0' {
		return 0, -1, false // no digit, or a leading zero
	}
	if j < len(raw) && raw[j] == '.' {
		j++
		frac := j
		for ; j < len(raw); j++ {
			d := raw[j] - '0'
			if d > 9 {
				break
			}
			mant = mant*10 + uint64(d)
		}
		if j == frac {
			return 0, -1, false
		}
		digits += j - frac
		exp = frac - j
	}
	if j < len(raw) && (raw[j] == 'e' || raw[j] == 'E') {
		j++
		eneg := false
		if j < len(raw) && (raw[j] == '+' || raw[j] == '-') {
			eneg = raw[j] == '-'
			j++
		}
		e, first := 0, j
		for ; j < len(raw) && raw[j] >= '0' && raw[j] <= '9'; j++ {
			if e < 10000 { // far past any float's range: strconv decides
				e = e*10 + int(raw[j]-'0')
			}
		}
		if j == first {
			return 0, -1, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if digits > 19 || mant > 1<<53 {
		return 0, j, false
	}
	// mant and 10^|exp| are exact float64s, so one multiplication or division rounds
	// once, correctly.
	f := float64(mant)
	switch {
	case mant == 0:
	case exp > 0 && exp < len(pow10):
		f *= pow10[exp]
	case exp < 0 && -exp < len(pow10):
		f /= pow10[-exp]
	case exp != 0:
		return 0, j, false
	}
	if neg {
		f = -f
	}
	if bits == 32 {
		// Rounding the float64 again to float32 is right unless it landed exactly
		// between two float32s (the low 29 of its 52 fraction bits 1 followed by zeros),
		// where the exact value may lie on either side. Values here are within 1e-22
		// and 1e38, normal float32s.
		if math.Float64bits(f)&(1<<29-1) == 1<<28 {
			return 0, j, false
		}
		f = float64(float32(f))
	}
	return f, j, true
}
