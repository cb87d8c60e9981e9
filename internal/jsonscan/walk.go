package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The functions below walk JSON text that Valid (or Check) has accepted, and trust it:
// they find where a value ends without checking it again, so that a decoder that has
// checked a body once can take it apart without encoding/json scanning a megabyte of
// tensor data again for every level it decodes. On text that is not valid they do not
// panic, but their answers mean nothing.

// StringEnd returns the index after the string that starts at raw[i], or len(raw)
// when it is not closed.
func StringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// ValueEnd returns the index after the value that starts at raw[i]: a string, an
// object or array with everything it holds, or a scalar up to the next delimiter.
func ValueEnd(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		return StringEnd(raw, i)
	case '{', '[':
		depth, closing := 0, 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = StringEnd(raw, j) - 1
			case '[':
				if end := flatArrayEnd(raw, j, &closing); end > 0 {
					if depth == 0 {
						return end
					}
					j = end - 1
					continue
				}
				depth++
			case '{':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(raw)
	}
	j := i
	for j < len(raw) && raw[j] != ',' && raw[j] != '}' && raw[j] != ']' && raw[j] != ' ' && raw[j] != '\t' && raw[j] != '\n' && raw[j] != '\r' {
		j++
	}
	return j
}

// flatArrayEnd returns the index after the array starting at raw[i] when it holds
// neither an array, an object nor a string, or 0. A tensor's data is such an array,
// megabytes of numbers that a decoder steps over at every level on its way down (the
// request's inputs, an input, its data): bytes.IndexByte finds the brackets and
// quotes that would end the fast path many times faster than a byte loop.
//
// closing carries, from one call to the next of one scan, the index of the first ']'
// found after an earlier '[' (0: none searched yet; len(raw): none left). It stays the
// first after every later '[' before it, so deeply nested arrays are not searched
// again to their end at every level.
func flatArrayEnd(raw []byte, i int, closing *int) int {
	if *closing <= i {
		*closing = len(raw)
		if e := bytes.IndexByte(raw[i+1:], ']'); e >= 0 {
			*closing = i + 1 + e
		}
	}
	if *closing == len(raw) {
		return 0
	}
	body := raw[i+1 : *closing]
	if bytes.IndexByte(body, '[') >= 0 || bytes.IndexByte(body, '{') >= 0 || bytes.IndexByte(body, '"') >= 0 {
		return 0
	}
	return *closing + 1
}

// Object is a JSON object's members in the order written, their values not copied.
// Looking a member up by scanning a handful is cheaper than building a map of them,
// which a decoder would do for every object of every request.
type Object []Member

// Member is one member of an Object: its name, unescaped, and its value.
type Member struct {
	Name  []byte
	Value json.RawMessage
}

// Get is the value of the member called name; of the last one, when there are two,
// as with encoding/json.
func (o Object) Get(name string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].Name) == name {
			return o[i].Value, true
		}
	}
	return nil, false
}

// Members splits valid JSON text holding an object into its members, without copying
// their values; ok is false when raw is not an object.
func Members(raw []byte) (Object, bool) { return AppendMembers(nil, raw) }

// AppendMembers is Members appending to dst, which a caller may keep on its stack.
func AppendMembers(dst Object, raw []byte) (Object, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' {
		return nil, false
	}
	i := SkipSpace(raw, 1)
	for i < len(raw) && raw[i] == '"' {
		end := StringEnd(raw, i)
		name := raw[i+1 : end-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			var s string
			if json.Unmarshal(raw[i:end], &s) != nil {
				return nil, false
			}
			name = []byte(s)
		}
		i = SkipSpace(raw, end)
		i = SkipSpace(raw, i+1) // the colon
		vend := ValueEnd(raw, i)
		dst = append(dst, Member{Name: name, Value: raw[i:vend]})
		i = SkipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i = SkipSpace(raw, i+1)
		}
	}
	if dst == nil {
		dst = Object{}
	}
	return dst, true
}

// Elements splits valid JSON text holding an array into its elements, without copying
// them (an empty array gives an empty, non-nil slice); ok is false when raw is not an
// array.
func Elements(raw []byte) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return nil, false
	}
	out := []json.RawMessage{}
	i := SkipSpace(raw, 1)
	for i < len(raw) && raw[i] != ']' {
		end := ValueEnd(raw, i)
		out = append(out, raw[i:end])
		i = SkipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = SkipSpace(raw, i+1)
		}
	}
	return out, true
}

// HugeNumber returns the first number of valid JSON text raw that overflows a float64,
// or "". The contract's readers (kin-openapi, and most clients) cannot represent one,
// so it must not reach a model, nor come back in an echo no client could read.
func HugeNumber(raw []byte) string {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			i = StringEnd(raw, i) - 1
		case c == '-' || c >= '0' && c <= '9':
			j := ValueEnd(raw, i)
			if BeyondDouble(raw[i:j]) {
				return string(raw[i:j])
			}
			i = j - 1
		}
	}
	return ""
}

// BeyondDouble reports whether the JSON number num overflows a float64: only an
// exponent or more than 308 digits can, so other numbers are not parsed.
func BeyondDouble(num []byte) bool {
	if len(num) <= 308 && bytes.IndexByte(num, 'e') < 0 && bytes.IndexByte(num, 'E') < 0 {
		return false
	}
	_, err := strconv.ParseFloat(string(num), 64)
	return err != nil
}
