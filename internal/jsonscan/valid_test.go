package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid: Valid gives json.Valid's answer on any input.
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
		if got, want := Valid(raw), json.Valid(raw); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", raw, got, want)
		}
	})
}

// BenchmarkValid checks the harness's echo and digits predict bodies with Valid and
// with json.Valid, whose answer it gives.
func BenchmarkValid(b *testing.B) {
	bodies := []struct{ name, body string }{
		{"echo", `{"model":"echo","version":"v1","data":{"text":"hello","n":42}}`},
		{"digits", `{"model":"digits","version":"v1","data":[0,0,5,13,9,1,0,0,0,0,13,15,10,15,5,0,0,3,15,2,0,11,8,0,0,4,12,0,0,8,8,0,0,5,8,0,0,9,8,0,0,4,11,0,1,12,7,0,0,2,14,5,10,12,0,0,0,0,6,13,10,0,0,0]}`},
	}
	for _, c := range bodies {
		raw := []byte(c.body)
		for _, f := range []struct {
			name  string
			valid func([]byte) bool
		}{{"Valid", Valid}, {"json.Valid", json.Valid}} {
			b.Run(c.name+"/"+f.name, func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					if !f.valid(raw) {
						b.Fatal("invalid")
					}
				}
			})
		}
	}
}
