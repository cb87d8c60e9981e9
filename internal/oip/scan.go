package oip

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/inferd/inferd/internal/jsonscan"
)

// Decode checks a request's JSON once (jsonscan.Valid, which answers as json.Valid)
// and then walks it with the splitters below, which trust it: encoding/json would
// scan a megabyte of tensor data again for every level it decodes.

// members splits valid JSON text holding an object into its members, without copying
// their values; ok is false when raw is not an object. A later duplicate key wins, as
// with encoding/json.
func members(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	i := jsonscan.SkipSpace(raw, 1)
	for i < len(raw) && raw[i] == '"' {
		end := stringEnd(raw, i)
		var key string
		if bytes.IndexByte(raw[i:end], '\\') < 0 {
			key = string(raw[i+1 : end-1])
		} else if json.Unmarshal(raw[i:end], &key) != nil {
			return nil, false
		}
		i = jsonscan.SkipSpace(raw, end)
		i = jsonscan.SkipSpace(raw, i+1) // the colon
		vend := valueEnd(raw, i)
		out[key] = raw[i:vend]
		i = jsonscan.SkipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
	}
	return out, true
}

// elements splits valid JSON text holding an array into its elements; ok is false
// when raw is not an array.
func elements(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return nil, false
	}
	out := []json.RawMessage{}
	i := jsonscan.SkipSpace(raw, 1)
	for i < len(raw) && raw[i] != ']' {
		end := valueEnd(raw, i)
		out = append(out, raw[i:end])
		i = jsonscan.SkipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
	}
	return out, true
}

// stringEnd returns the index after the string starting at raw[i].
func stringEnd(raw []byte, i int) int {
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

// valueEnd returns the index after the value starting at raw[i].
func valueEnd(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		return stringEnd(raw, i)
	case '{', '[':
		depth, closing := 0, 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = stringEnd(raw, j) - 1
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
// megabytes of numbers that Decode steps over three times on its way down (the
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

// hugeNumber returns the first number of valid JSON text raw that overflows a float64,
// or "": no JSON reader of the contract's clients can hold one. Tensor data is checked
// element by element against its datatype instead, so Decode runs this on the rest.
func hugeNumber(raw []byte) string {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			i = stringEnd(raw, i) - 1
		case c == '-' || c >= '0' && c <= '9':
			j := valueEnd(raw, i)
			if num := raw[i:j]; j-i > 308 || bytes.ContainsAny(num, "eE") {
				if _, err := strconv.ParseFloat(string(num), 64); err != nil {
					return string(num)
				}
			}
			i = j - 1
		}
	}
	return ""
}

// checkHuge refuses a member holding a number beyond a float64.
func checkHuge(where string, raw json.RawMessage) error {
	if n := hugeNumber(raw); n != "" {
		return fail("%s: the number %.40s is beyond the range of a double (about 1.8e308), which JSON readers cannot hold", where, n)
	}
	return nil
}
