package jsonscan

import (
	"bytes"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendCanonical appends to dst the canonical text of raw, which must be one JSON
// value (ok is false, dst unchanged, when it is not). Two texts have one canonical
// text exactly when they hold the same JSON value, so that a client that sends a value
// again, spelled otherwise by another encoder, is known to send the same thing:
//
//   - whitespace between tokens does not count;
//   - a string counts by the characters it holds, however they are escaped ("A" and
//     "\u0041" are one string); an escaped lone surrogate, which holds no character,
//     is kept as its escape, so it is the same as itself only;
//   - a number counts by its decimal value, exactly: 1, 1.0, 1e0 and 10E-1 are one
//     number, -0 is 0, and 12345678901234567890 is never 12345678901234567891 (no
//     number is rounded through a float64);
//   - an object counts by its members, in whatever order they are written.
//
// The canonical text is JSON itself, without whitespace: strings escape only the quote,
// the backslash and control characters (as \u00xx); numbers are 0 or
// -?D(.DDD)?eX, the significant digits D with the decimal exponent X of the first;
// members are sorted by their canonical names, bytewise. It is written for digests
// (an Idempotency-Key's fingerprint) and not meant to be read back.
func AppendCanonical(dst, raw []byte) ([]byte, bool) {
	c := canonical{raw: raw, out: dst}
	n := len(dst)
	i := SkipSpace(raw, 0)
	i, ok := c.value(i, 0)
	if !ok || SkipSpace(raw, i) != len(raw) {
		return dst[:n], false
	}
	return c.out, true
}

// canonical is one AppendCanonical: the text it reads, what it writes, and the
// members of the objects open, innermost last, which share one slice.
type canonical struct {
	raw     []byte
	out     []byte
	members []canonicalMember
	tmp     []byte
}

// canonicalMember is a member as written to out: its name at out[start:colon] (quoted)
// and its value up to end.
type canonicalMember struct{ start, colon, end int }

func (c *canonical) value(i, depth int) (int, bool) {
	raw := c.raw
	if i >= len(raw) {
		return i, false
	}
	switch b := raw[i]; {
	case b == '{':
		if depth >= maxDepth {
			return i, false
		}
		return c.object(i, depth+1)
	case b == '[':
		if depth >= maxDepth {
			return i, false
		}
		return c.array(i, depth+1)
	case b == '"':
		return c.string(i)
	case b == '-' || b >= '0' && b <= '9':
		end := NumberEnd(raw, i)
		if end < 0 {
			return i, false
		}
		c.out = appendCanonicalNumber(c.out, raw[i:end])
		return end, true
	}
	for _, word := range [...]string{"true", "false", "null"} {
		if end := validLiteral(raw, i, word); end > 0 {
			c.out = append(c.out, word...)
			return end, true
		}
	}
	return i, false
}

func (c *canonical) array(i, depth int) (int, bool) {
	raw := c.raw
	c.out = append(c.out, '[')
	i = SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(i, depth); !ok {
			return i, false
		}
		i = SkipSpace(raw, i)
		switch {
		case i >= len(raw):
			return i, false
		case raw[i] == ',':
			c.out = append(c.out, ',')
			i = SkipSpace(raw, i+1)
		case raw[i] == ']':
			c.out = append(c.out, ']')
			return i + 1, true
		default:
			return i, false
		}
	}
}

func (c *canonical) object(i, depth int) (int, bool) {
	raw := c.raw
	open := len(c.out)
	c.out = append(c.out, '{')
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	i = SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		c.out = append(c.out, '}')
		return i + 1, true
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return i, false
		}
		m := canonicalMember{start: len(c.out)}
		var ok bool
		if i, ok = c.string(i); !ok {
			return i, false
		}
		m.colon = len(c.out)
		if i = SkipSpace(raw, i); i >= len(raw) || raw[i] != ':' {
			return i, false
		}
		c.out = append(c.out, ':')
		if i, ok = c.value(SkipSpace(raw, i+1), depth); !ok {
			return i, false
		}
		m.end = len(c.out)
		c.members = append(c.members, m)
		i = SkipSpace(raw, i)
		switch {
		case i >= len(raw):
			return i, false
		case raw[i] == ',':
			c.out = append(c.out, ',')
			i = SkipSpace(raw, i+1)
		case raw[i] == '}':
			c.sortMembers(open, c.members[base:])
			c.out = append(c.out, '}')
			return i + 1, true
		default:
			return i, false
		}
	}
}

// sortMembers puts the members written after out[open] in the order of their names
// (and of their values, for a name written twice), unless they are in it already, as
// most objects a program writes out of a sorted map or a struct are.
func (c *canonical) sortMembers(open int, ms []canonicalMember) {
	cmp := func(a, b canonicalMember) int {
		if d := bytes.Compare(c.out[a.start:a.colon], c.out[b.start:b.colon]); d != 0 {
			return d
		}
		return bytes.Compare(c.out[a.colon:a.end], c.out[b.colon:b.end])
	}
	if slices.IsSortedFunc(ms, cmp) {
		return
	}
	slices.SortFunc(ms, cmp)
	c.tmp = c.tmp[:0]
	for k, m := range ms {
		if k > 0 {
			c.tmp = append(c.tmp, ',')
		}
		c.tmp = append(c.tmp, c.out[m.start:m.end]...)
	}
	c.out = append(c.out[:open+1], c.tmp...)
}

// string writes the string at raw[i] with the characters it holds, escaping only what
// must be, and returns the index after it.
func (c *canonical) string(i int) (int, bool) {
	raw := c.raw
	c.out = append(c.out, '"')
	j := i + 1
	for {
		run := j
		for j < len(raw) && raw[j] != '"' && raw[j] != '\\' && raw[j] >= 0x20 {
			j++
		}
		c.out = append(c.out, raw[run:j]...)
		if j >= len(raw) || raw[j] < 0x20 {
			return j, false
		}
		if raw[j] == '"' {
			c.out = append(c.out, '"')
			return j + 1, true
		}
		if j+1 >= len(raw) {
			return j, false
		}
		switch e := raw[j+1]; e {
		case '"', '\\':
			c.out = append(c.out, '\\', e)
		case '/':
			c.out = append(c.out, '/')
		case 'b':
			c.out = appendControl(c.out, '\b')
		case 'f':
			c.out = appendControl(c.out, '\f')
		case 'n':
			c.out = appendControl(c.out, '\n')
		case 'r':
			c.out = appendControl(c.out, '\r')
		case 't':
			c.out = appendControl(c.out, '\t')
		case 'u':
			r, ok := hex4(raw, j+2)
			if !ok {
				return j, false
			}
			j += 6
			if r >= 0xd800 && r < 0xdc00 {
				if lo, ok := hex4(raw, j+2); ok && raw[j] == '\\' && raw[j+1] == 'u' && lo >= 0xdc00 && lo < 0xe000 {
					c.out = utf8.AppendRune(c.out, 0x10000+(r-0xd800)<<10+(lo-0xdc00))
					j += 6
					continue
				}
			}
			switch {
			case r >= 0xd800 && r < 0xe000: // a lone surrogate: no character
				c.out = append(c.out, '\\', 'u')
				c.out = appendHex4(c.out, r)
			case r < 0x20:
				c.out = appendControl(c.out, byte(r))
			case r == '"' || r == '\\':
				c.out = append(c.out, '\\', byte(r))
			default:
				c.out = utf8.AppendRune(c.out, r)
			}
			continue
		default:
			return j, false
		}
		j += 2
	}
}

// hex4 reads the four hex digits at raw[i].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, h := range raw[i : i+4] {
		var d byte
		switch {
		case h >= '0' && h <= '9':
			d = h - '0'
		case h >= 'a' && h <= 'f':
			d = h - 'a' + 10
		case h >= 'A' && h <= 'F':
			d = h - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func appendHex4(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

func appendControl(dst []byte, b byte) []byte {
	return appendHex4(append(dst, '\\', 'u'), rune(b))
}

// maxSmallExponent is the most digits of an exponent added up in an int64: more, and
// math/big does it (1e-99999999999999999999 is a valid number, 0 as a double).
const maxSmallExponent = 17

// appendCanonicalNumber writes the JSON number num (NumberEnd's grammar) as 0 or
// -?D(.DDD)?eX: its significant digits, without leading or trailing zeros, and the
// decimal exponent of the first.
func appendCanonicalNumber(dst, num []byte) []byte {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	intEnd := digits(num, 0)
	whole, frac := num[:intEnd], []byte(nil)
	rest := num[intEnd:]
	if len(rest) > 0 && rest[0] == '.' {
		end := digits(rest, 1)
		frac, rest = rest[1:end], rest[end:]
	}
	var exp []byte // the exponent's digits, with its sign
	if len(rest) > 0 {
		exp = rest[1:]
	}
	// The first significant digit, counted from the start of whole then frac.
	lead := 0
	for lead < len(whole)+len(frac) && digitAt(whole, frac, lead) == '0' {
		lead++
	}
	last := len(whole) + len(frac) - 1
	for last >= lead && digitAt(whole, frac, last) == '0' {
		last--
	}
	if lead > last {
		return append(dst, '0')
	}
	if neg {
		dst = append(dst, '-')
	}
	for k := lead; k <= last; k++ {
		dst = append(dst, digitAt(whole, frac, k))
		if k == lead && k < last {
			dst = append(dst, '.')
		}
	}
	dst = append(dst, 'e')
	// value = 0.D... x 10^(len(whole)-lead) x 10^exp; the first digit's exponent is one less.
	shift := int64(len(whole) - lead - 1)
	sign := int64(1)
	if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
		if exp[0] == '-' {
			sign = -1
		}
		exp = exp[1:]
	}
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	if len(exp) <= maxSmallExponent {
		var e int64
		for _, d := range exp {
			e = e*10 + int64(d-'0')
		}
		return strconv.AppendInt(dst, sign*e+shift, 10)
	}
	e, _ := new(big.Int).SetString(string(exp), 10) // digits only: cannot fail
	if sign < 0 {
		e.Neg(e)
	}
	return e.Add(e, big.NewInt(shift)).Append(dst, 10)
}

// digitAt is the k-th digit of whole followed by frac.
func digitAt(whole, frac []byte, k int) byte {
	if k < len(whole) {
		return whole[k]
	}
	return frac[k-len(whole)]
}
