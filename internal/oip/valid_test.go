package oip

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid: valid gives json.Valid's answer on any input.
func FuzzValid(f *testing.F) {
	for _, s := range []string{
		`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,-2.5e+3]}]}`,
		` [1, 2 ,3 ] `, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[01]`, `[-]`, `[1.]`, `[.5]`, `[1e]`, `[1E+2]`, `[-0.0e-0]`,
		`"\u00e9\n\"\\\/"`, `"\x"`, `"\u12g4"`, "\"a\x01\"", "\"\xff\"", `truefalse`, `[true,false,null]`, `nul`, ``, ` `,
		`{}`, `[]`, `{ }`, `[ ]`, `[[],{}]`, `{"a":{"b":[]}}`, `]`, `}`, `[}`, `{]`, `"`, `[1 2]`, `1 2`,
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
		strings.Repeat(`{"a":`, maxDepth) + "{}" + strings.Repeat("}", maxDepth),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := valid(raw), json.Valid(raw); got != want {
			t.Fatalf("valid(%q) = %v, json.Valid says %v", raw, got, want)
		}
	})
}
