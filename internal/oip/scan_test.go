package oip

import (
	"encoding/json"
	"strings"
	"testing"
)

// byteValueEnd is valueEnd without flatArrayEnd's fast path: one byte at a time.
func byteValueEnd(raw []byte, i int) int {
	if i >= len(raw) || (raw[i] != '{' && raw[i] != '[') {
		return valueEnd(raw, i)
	}
	depth := 0
	for j := i; j < len(raw); j++ {
		switch raw[j] {
		case '"':
			j = stringEnd(raw, j) - 1
		case '{', '[':
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

// FuzzValueEnd: on valid JSON, valueEnd finds the end of every array and object the
// byte loop finds, from wherever one starts.
func FuzzValueEnd(f *testing.F) {
	for _, s := range []string{
		`[1,2.5,-3e2]`,
		`{"inputs":[{"name":"x","shape":[2],"data":[1,2]}],"id":"]"}`,
		`[[1,2],[3,[4,"]"]],{"a":[]}]`,
		`[1,[1,[1,[1,[]]]]]`,
		`[["a]", 1], [2 , 3 ] ]`,
		strings.Repeat("[", 50) + strings.Repeat("]", 50),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		for i := 0; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				i = stringEnd(raw, i) - 1
			case '[', '{':
				if got, want := valueEnd(raw, i), byteValueEnd(raw, i); got != want {
					t.Fatalf("valueEnd(%q, %d) = %d, want %d", raw, i, got, want)
				}
			}
		}
	})
}
