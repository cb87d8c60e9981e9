package jsonscan

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// walkSeeds are the texts the walkers' fuzz tests start from besides seeds: tensors,
// strings holding brackets, nested flat arrays, and numbers at and past a double.
var walkSeeds = []string{
	`[1,2.5,-3e2]`,
	`{"inputs":[{"name":"x","shape":[2],"data":[1,2]}],"id":"]"}`,
	`[[1,2],[3,[4,"]"]],{"a":[]}]`,
	`[1,[1,[1,[1,[]]]]]`,
	`[["a]", 1], [2 , 3 ] ]`,
	strings.Repeat("[", 50) + strings.Repeat("]", 50),
	`{"model":"echo","items":[1,"two",null,true,false,{"k":[{}]},[[]]]}`,
	` { "model" : "echo" , "items" : [ 1 , [ 2 , 3 ] , "x,y" ] } `,
	`{"a":1,"a":2}`, `{"\u0061":1,"b\"":"\\"}`,
	`[1e308,1e309]`, `{"x":-1e999}`, `["1e999",1.7976931348623157e308]`, `1E+400`, `-0.0e-0`,
	`[` + strings.Repeat("9", 309) + `]`, `[` + strings.Repeat("9", 308) + `]`,
	`"a\"b"`, ` "" `, `true`, `null`,
}

// walkFuzz adds the seeds, but for the deepest of Valid's: FuzzValueEnd walks every
// nested value from its start, which at encoding/json's depth limit takes seconds.
func walkFuzz(f *testing.F) {
	for _, s := range append(seeds, walkSeeds...) {
		if len(s) < maxDepth {
			f.Add([]byte(s))
		}
	}
}

// FuzzValueEnd: on valid JSON, ValueEnd ends every array and object, the top-level
// value and every one inside it, where encoding/json's decoder, started there, ends it.
func FuzzValueEnd(f *testing.F) {
	walkFuzz(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		if got, want := ValueEnd(raw, SkipSpace(raw, 0)), decodedEnd(t, raw, 0); got != want {
			t.Fatalf("ValueEnd(%q) = %d, encoding/json ends it at %d", raw, got, want)
		}
		for i := 0; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				i = StringEnd(raw, i) - 1
			case '[', '{':
				if got, want := ValueEnd(raw, i), decodedEnd(t, raw, i); got != want {
					t.Fatalf("ValueEnd(%q, %d) = %d, encoding/json ends it at %d", raw, i, got, want)
				}
			}
		}
	})
}

// decodedEnd is where encoding/json's decoder ends the value that starts at raw[i].
func decodedEnd(t *testing.T, raw []byte, i int) int {
	dec := json.NewDecoder(bytes.NewReader(raw[i:]))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("Decode(%q): %v", raw[i:], err)
	}
	return i + int(dec.InputOffset())
}

// FuzzStringEnd: on valid JSON, every string, names included, ends where
// encoding/json's tokenizer ends it.
func FuzzStringEnd(f *testing.F) {
	walkFuzz(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		prev := 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("Token: %v", err)
			}
			end := int(dec.InputOffset())
			if _, ok := tok.(string); ok {
				start := prev + bytes.IndexByte(raw[prev:], '"')
				if got := StringEnd(raw, start); got != end {
					t.Fatalf("StringEnd(%q, %d) = %d, encoding/json ends it at %d", raw, start, got, end)
				}
			}
			prev = end
		}
	})
}

// FuzzMembers: on valid UTF-8 JSON (the decoders refuse other bytes first), Members
// splits an object into the members encoding/json decodes it into, the last of a
// name twice included, and refuses every other value.
func FuzzMembers(f *testing.F) {
	walkFuzz(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || !utf8.Valid(raw) {
			return
		}
		got, ok := Members(raw)
		isObject := raw[SkipSpace(raw, 0)] == '{'
		if ok != isObject {
			t.Fatalf("Members(%q): ok %v, want %v", raw, ok, isObject)
		}
		if !ok {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("Unmarshal: %v", err)
		}
		names := map[string]bool{}
		for _, m := range got {
			names[string(m.Name)] = true
		}
		if len(names) != len(want) {
			t.Fatalf("Members(%q) = %d names, encoding/json has %d", raw, len(names), len(want))
		}
		for name, v := range want {
			if g, _ := got.Get(name); !bytes.Equal(g, v) {
				t.Fatalf("Members(%q).Get(%q) = %q, encoding/json has %q", raw, name, g, v)
			}
		}
	})
}

// FuzzElements: on valid JSON, Elements splits an array into the elements
// encoding/json decodes it into, and refuses every other value.
func FuzzElements(f *testing.F) {
	walkFuzz(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got, ok := Elements(raw)
		isArray := raw[SkipSpace(raw, 0)] == '['
		if ok != isArray {
			t.Fatalf("Elements(%q): ok %v, want %v", raw, ok, isArray)
		}
		if !ok {
			return
		}
		var want []json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("Unmarshal: %v", err)
		}
		if got == nil || len(got) != len(want) {
			t.Fatalf("Elements(%q) = %q, encoding/json has %q", raw, got, want)
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("Elements(%q)[%d] = %q, encoding/json has %q", raw, i, got[i], want[i])
			}
		}
	})
}

// FuzzHugeNumber: on valid JSON, HugeNumber names the first number, in the order
// encoding/json's tokenizer reads them, that encoding/json cannot decode into a
// float64, and "" exactly when encoding/json decodes the text into any without error.
func FuzzHugeNumber(f *testing.F) {
	walkFuzz(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		want := ""
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		for want == "" {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Token: %v", err)
			}
			if n, ok := tok.(json.Number); ok {
				var x float64
				if json.Unmarshal([]byte(n), &x) != nil {
					want = string(n)
				}
			}
		}
		if got := HugeNumber(raw); got != want {
			t.Fatalf("HugeNumber(%q) = %q, want %q", raw, got, want)
		}
		var v any
		if err := json.Unmarshal(raw, &v); (err != nil) != (want != "") {
			t.Fatalf("HugeNumber(%q) = %q, and json.Unmarshal into any says %v", raw, want, err)
		}
	})
}

// FuzzBeyondDouble: BeyondDouble says of every JSON number whether encoding/json
// refuses to decode it into a float64.
func FuzzBeyondDouble(f *testing.F) {
	for _, s := range []string{"0", "-0.0e-0", "1e308", "1e309", "-1E+400", "1.7976931348623157e308", "1.7976931348623159e308",
		"4.9e-324", "1e-400", strings.Repeat("9", 308), strings.Repeat("9", 309), "1" + strings.Repeat("0", 400) + "e-100"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, num []byte) {
		if NumberEnd(num, 0) != len(num) {
			return
		}
		var x float64
		if got, want := BeyondDouble(num), json.Unmarshal(num, &x) != nil; got != want {
			t.Fatalf("BeyondDouble(%s) = %v, json.Unmarshal refuses it: %v", num, got, want)
		}
	})
}

// TestHugeNumber: the numbers the 400s name.
func TestHugeNumber(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"a":[1,2,1e308]}`, ""},
		{`{"a":"1e999","b":[1,-1e999,1e999]}`, "-1e999"},
		{`[` + strings.Repeat("9", 309) + `]`, strings.Repeat("9", 309)},
		{`{"x":1E+400}`, "1E+400"},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			if got := HugeNumber([]byte(tt.text)); got != tt.want {
				t.Errorf("HugeNumber(%s) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}
