package jsonscan

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/jsonscan/jsonscantest"
)

// seeds are the texts FuzzValid and FuzzCheck start from.
var seeds = []string{
	`{"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,-2.5e+3]}]}`,
	` [1, 2 ,3 ] `, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[01]`, `[-]`, `[1.]`, `[.5]`, `[1e]`, `[1E+2]`, `[-0.0e-0]`,
	`"\u00e9\n\"\\\/"`, `"\x"`, `"\u12g4"`, "\"a\x01\"", "\"\xff\"", `truefalse`, `[true,false,null]`, `nul`, ``, ` `,
	`{}`, `[]`, `{ }`, `[ ]`, `[[],{}]`, `{"a":{"b":[]}}`, `]`, `}`, `[}`, `{]`, `"`, `[1 2]`, `1 2`,
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	strings.Repeat(`{"a":`, maxDepth) + "{}" + strings.Repeat("}", maxDepth),
	// Duplicates: spelled alike, through escapes, as U+FFFD, past the linear scan, in
	// sibling objects (not duplicates), after a syntax error.
	`{"model":"echo","model":"iris"}`, `{"a":1,"\u0061":2}`, `{"é":1,"\u00e9":2}`, "{\"\xff\":1,\"\xfe\":2}",
	`{"\ud800":1,"\ufffd":2}`, `{"a":{"b":1},"c":{"b":1}}`, `[{"a":1},{"a":1}]`, `{"a":[{"x":1,"x":2}]}`,
	`{"a":1,"b":{"a":1,"c":1,"c":2}}`, `{"a":1,"a":}`, `{"a":1,"b":2,` + manyMembers(40) + `,"a":3}`, `{` + manyMembers(40) + `}`,
}

// manyMembers is n distinct members, k0 to kn-1, without braces.
func manyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return b.String()
}

// FuzzValid: Valid gives json.Valid's answer on any input.
func FuzzValid(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := Valid(raw), json.Valid(raw); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", raw, got, want)
		}
	})
}

// FuzzCheck: Check refuses what json.Valid refuses, and of the rest exactly the texts
// in which encoding/json's decoder, reading names as it reads them, meets a name
// twice in one object; the error names the first such name and where its object is.
// encoding/json itself accepts duplicates (the last wins), so the oracle is its
// tokenizer with a set per object.
func FuzzCheck(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := Check(raw)
		if !json.Valid(raw) {
			if err == nil {
				t.Fatalf("Check(%q) = nil, json.Valid says false", raw)
			}
			return
		}
		want := firstDuplicate(t, raw)
		var dup *DuplicateError
		switch {
		case want == nil && err != nil:
			t.Fatalf("Check(%q) = %v, want nil", raw, err)
		case want != nil && !errors.As(err, &dup):
			t.Fatalf("Check(%q) = %v, want %v", raw, err, want)
		case want != nil && (dup.Name != want.Name || dup.Path != want.Path):
			t.Fatalf("Check(%q) = %v, want %v", raw, dup, want)
		}
	})
}

// firstDuplicate is jsonscantest.Duplicate as a *DuplicateError, its path spelled as
// Check spells it, or nil.
func firstDuplicate(t *testing.T, raw []byte) *DuplicateError {
	name, at, found, err := jsonscantest.Duplicate(raw)
	if err != nil {
		t.Fatalf("Duplicate: %v", err)
	}
	if !found {
		return nil
	}
	var path string
	for _, p := range at {
		switch p := p.(type) {
		case int:
			path += "[" + strconv.Itoa(p) + "]"
		case string:
			switch {
			case !identifier(p):
				path += "[" + strconv.Quote(p) + "]"
			case path == "":
				path = p
			default:
				path += "." + p
			}
		}
	}
	return &DuplicateError{Name: name, Path: path}
}

// TestCheck: the messages Check gives, which the 400s of every JSON body carry.
func TestCheck(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"top level", `{"model":"echo","model":"iris"}`, `duplicate member "model"`},
		{"through an escape", `{"model":"echo","\u006dodel":"iris"}`, `duplicate member "model"`},
		{"nested", `{"model":"echo","data":{"x":[{"a":1,"b":2,"a":3}]}}`, `duplicate member "a" in data.x[0]`},
		{"odd name on the way", `{"a b":{"c":1,"c":1}}`, `duplicate member "c" in ["a b"]`},
		{"in an array", `[1,{"k":1,"k":2}]`, `duplicate member "k" in [1]`},
		{"past the linear scan", `{` + manyMembers(100) + `,"k57":0}`, `duplicate member "k57"`},
		{"syntax", `{"a":1,}`, ErrSyntax.Error()},
		{"unique", `{"a":{"a":{"a":1}},"b":[{"a":1},{"a":1}]}`, ""},
		{"many unique", `{` + manyMembers(1000) + `}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.text))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Check = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkValid checks the harness's echo and digits predict bodies with Valid, with
// Check (Valid and unique names, what the request path runs) and with json.Valid, whose
// answer Valid gives; wide is an object of 200 members, past the linear scan.
func BenchmarkValid(b *testing.B) {
	bodies := []struct{ name, body string }{
		{"echo", `{"model":"echo","version":"v1","data":{"text":"hello","n":42}}`},
		{"digits", `{"model":"digits","version":"v1","data":[0,0,5,13,9,1,0,0,0,0,13,15,10,15,5,0,0,3,15,2,0,11,8,0,0,4,12,0,0,8,8,0,0,5,8,0,0,9,8,0,0,4,11,0,1,12,7,0,0,2,14,5,10,12,0,0,0,0,6,13,10,0,0,0]}`},
		{"wide", `{"model":"echo","data":{` + manyMembers(200) + `}}`},
	}
	for _, c := range bodies {
		raw := []byte(c.body)
		for _, f := range []struct {
			name  string
			valid func([]byte) bool
		}{{"Valid", Valid}, {"Check", func(b []byte) bool { return Check(b) == nil }}, {"json.Valid", json.Valid}} {
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
