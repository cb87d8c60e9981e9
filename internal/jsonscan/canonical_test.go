package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"unicode/utf8"
)

func canonicalOf(t *testing.T, raw string) string {
	t.Helper()
	out, ok := AppendCanonical(nil, []byte(raw))
	if !ok {
		t.Fatalf("AppendCanonical(%q): not one JSON value", raw)
	}
	return string(out)
}

// TestCanonicalPairs: the texts that hold one JSON value have one canonical text, and
// those that do not have two.
func TestCanonicalPairs(t *testing.T) {
	same := []struct{ name, a, b string }{
		{"an escaped letter", `{"data":"A"}`, `{"data":"\u0041"}`},
		{"an escaped slash", `"a/b"`, `"a\/b"`},
		{"a lower- or upper-case escape", `"\u00e9"`, `"\u00E9"`},
		{"an escape of a character beyond ASCII", `"é"`, `"\u00e9"`},
		{"a surrogate pair", `"😀"`, `"\ud83d\ude00"`},
		{"the escapes of a control character", `"\n\t\b\f\r"`, `"\u000a\u0009\u0008\u000c\u000d"`},
		{"an escaped quote and backslash", `"\"\\"`, `"\u0022\u005c"`},
		{"HTML escapes as Go writes them", `"<a&b>"`, `"\u003ca\u0026b\u003e"`},
		{"an escaped member name", `{"a":1}`, `{"\u0061":1}`},
		{"whitespace", `{"a":[1,2],"b":{"c":null}}`, " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\":{ \"c\" :null } } "},
		{"member order", `{"a":1,"b":2,"c":3}`, `{"c":3,"a":1,"b":2}`},
		{"member order at depth", `[{"x":{"p":1,"q":2},"y":0}]`, `[{"y":0,"x":{"q":2,"p":1}}]`},
		{"1 and 1.0", `1`, `1.0`},
		{"1 and 1e0", `1`, `1e0`},
		{"1 and 10E-1", `1`, `10E-1`},
		{"1 and 0.1e+1", `1`, `0.1e+1`},
		{"100 and 1e2", `100`, `1e2`},
		{"100 and 1E+02", `100`, `1E+02`},
		{"a fraction and its exponent form", `0.00125`, `1.25e-3`},
		{"trailing zeros of a fraction", `2.50`, `2.5`},
		{"0 and -0", `0`, `-0`},
		{"0 and 0.0e5", `0`, `0.0e5`},
		{"a negative number", `-1.5`, `-15e-1`},
		{"a number beyond a double's digits", `12345678901234567890`, `1.234567890123456789e19`},
		{"a number beyond a double's range of exponents", `1e-99999999999999999999`, `10e-100000000000000000000`},
		{"what JavaScript and Python write for one float", `{"x":[1,100,0.5]}`, `{"x":[1.0,100.0,0.5]}`},
		{"a Python float of 1e16", `10000000000000000`, `1e+16`},
		{"empty containers", `[{},[]]`, `[ { } , [ ] ]`},
	}
	for _, tt := range same {
		t.Run("same/"+tt.name, func(t *testing.T) {
			if a, b := canonicalOf(t, tt.a), canonicalOf(t, tt.b); a != b {
				t.Fatalf("%s -> %s\n%s -> %s\nwant one canonical text", tt.a, a, tt.b, b)
			}
		})
	}
	differ := []struct{ name, a, b string }{
		{"two letters", `"A"`, `"B"`},
		{"a string and a number", `"1"`, `1`},
		{"a string and null", `"null"`, `null`},
		{"true and false", `true`, `false`},
		{"the last digit beyond a double", `12345678901234567890`, `12345678901234567891`},
		{"numbers one double apart", `9007199254740993`, `9007199254740992`},
		{"1 and 1.0000000000000000001", `1`, `1.0000000000000000001`},
		{"1 and -1", `1`, `-1`},
		{"exponents", `1e2`, `1e3`},
		{"huge exponents", `1e-99999999999999999999`, `1e-99999999999999999998`},
		{"0.1 and 1", `0.1`, `1`},
		{"a lone surrogate and the replacement character", `"\ud800"`, `"\ufffd"`},
		{"two lone surrogates", `"\ud800"`, `"\udc00"`},
		{"composed and decomposed é", `"\u00e9"`, `"e\u0301"`},
		{"array order", `[1,2]`, `[2,1]`},
		{"a member more", `{"a":1}`, `{"a":1,"b":null}`},
		{"a value moved to another member", `{"a":1,"b":2}`, `{"a":2,"b":1}`},
		{"nesting", `[[1],2]`, `[1,[2]]`},
		{"an empty object and an empty array", `{}`, `[]`},
		{"a name and its value swapped", `{"a":"b"}`, `{"b":"a"}`},
		{"a quote in a name", `{"a\"":1}`, `{"a":1}`},
		{"a case of a letter", `"a"`, `"A"`},
	}
	for _, tt := range differ {
		t.Run("differ/"+tt.name, func(t *testing.T) {
			if a, b := canonicalOf(t, tt.a), canonicalOf(t, tt.b); a == b {
				t.Fatalf("%s and %s have one canonical text, %s; want two", tt.a, tt.b, a)
			}
		})
	}
}

// TestCanonicalText pins the canonical spelling itself.
func TestCanonicalText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":[1, 2.50, -0.0], "a":"x\u0041\n\/"}`, `{"a":"xA\u000a/","b":[1e0,2.5e0,0]}`},
		{`12345678901234567890`, `1.234567890123456789e19`},
		{`-0.00125e-2`, `-1.25e-5`},
		{`"\ud83d\ude00 \ud800x"`, `"😀 \ud800x"`},
		{`{"a":1,"a":0}`, `{"a":0,"a":1e0}`},
		{`1e99999999999999999999`, `1e99999999999999999999`},
		{`123.456e-99999999999999999999`, `1.23456e-99999999999999999997`},
		{` null `, `null`},
	}
	for _, tt := range tests {
		if got := canonicalOf(t, tt.in); got != tt.want {
			t.Errorf("AppendCanonical(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a" 1}`, `"\x"`, "\"\x01\"", `01`, `1 2`, `nul`, `{"a":1,}`, `"\u12"`, strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)} {
		if out, ok := AppendCanonical([]byte("keep"), []byte(bad)); ok || string(out) != "keep" {
			t.Errorf("AppendCanonical(%.40q) = %q, %v; want dst unchanged, false", bad, out, ok)
		}
	}
}

// FuzzCanonical: the canonical text of valid JSON is valid JSON, its own canonical
// text, and that of the value as encoding/json decodes it and writes it again (keys
// sorted, strings escaped its way, numbers as written), when encoding/json reads the
// value whole: valid UTF-8, no lone surrogate, no member named twice.
func FuzzCanonical(f *testing.F) {
	walkFuzz(f)
	f.Add([]byte(`{"b":"\u0041","a":[1.0,"\ud83d\ude00"]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, ok := AppendCanonical(nil, raw)
		if ok != json.Valid(raw) {
			t.Fatalf("AppendCanonical(%q) ok %v, json.Valid %v", raw, ok, !ok)
		}
		if !ok {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("AppendCanonical(%q) = %q, not valid JSON", raw, out)
		}
		again, ok := AppendCanonical(nil, out)
		if !ok || !bytes.Equal(again, out) {
			t.Fatalf("AppendCanonical(%q) = %q, whose own is %q", raw, out, again)
		}
		if !utf8.Valid(raw) || Check(raw) != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return // beyond encoding/json's depth
		}
		re, err := json.Marshal(v)
		if err != nil || bytes.ContainsRune(re, utf8.RuneError) {
			return // a lone surrogate decoded as U+FFFD
		}
		if viaGo, ok := AppendCanonical(nil, re); !ok || !bytes.Equal(viaGo, out) {
			t.Fatalf("AppendCanonical(%q) = %q; encoding/json rewrites it as %q, whose canonical text is %q", raw, out, re, viaGo)
		}
	})
}

// FuzzCanonicalNumber: two JSON numbers have one canonical text exactly when their
// values are equal, as math/big's exact rationals compare them.
func FuzzCanonicalNumber(f *testing.F) {
	for _, p := range [][2]string{{"1", "1.0"}, {"1e0", "10E-1"}, {"-0", "0"}, {"12345678901234567890", "12345678901234567891"}, {"0.5", "5e-1"}, {"100", "1e2"}, {"7", "7.000001"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if NumberEnd([]byte(a), 0) != len(a) || NumberEnd([]byte(b), 0) != len(b) || hugeExponent(a) || hugeExponent(b) {
			return
		}
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		if ra == nil || rb == nil {
			t.Fatalf("math/big does not read %q or %q", a, b)
		}
		ca := string(appendCanonicalNumber(nil, []byte(a)))
		cb := string(appendCanonicalNumber(nil, []byte(b)))
		if (ca == cb) != (ra.Cmp(rb) == 0) {
			t.Fatalf("%s -> %s, %s -> %s; math/big says equal: %v", a, ca, b, cb, ra.Cmp(rb) == 0)
		}
		if got, ok := new(big.Rat).SetString(ca); !ok || got.Cmp(ra) != 0 {
			t.Fatalf("%s -> %s, which is another number", a, ca)
		}
	})
}

// hugeExponent: math/big would take a while over 10^100000.
func hugeExponent(num string) bool {
	i := strings.IndexAny(num, "eE")
	return i >= 0 && len(strings.TrimLeft(strings.TrimLeft(num[i+1:], "+-"), "0")) > 4
}

func BenchmarkCanonical(b *testing.B) {
	item := `{"sepal_length":5.1,"sepal_width":3.5,"petal_length":1.4,"petal_width":0.2,"id":"flower-0001"}`
	raw := []byte("[" + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + "]")
	b.SetBytes(int64(len(raw)))
	var out []byte
	for b.Loop() {
		out, _ = AppendCanonical(out[:0], raw)
	}
}
