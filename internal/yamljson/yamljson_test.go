package yamljson

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name, yaml, want, err string
	}{
		{"big integer keeps its digits", "n: 12345678901234567890", `{"n":12345678901234567890}`, ""},
		{"integer beyond uint64", "n: 123456789012345678901234567890", `{"n":123456789012345678901234567890}`, ""},
		{"negative big integer", "n: -12345678901234567890", `{"n":-12345678901234567890}`, ""},
		{"float beyond float64", "n: 1e400", `{"n":1e400}`, ""},
		{"tiny float", "n: 1e-400", `{"n":1e-400}`, ""},
		{"negative zero", "[-0, -0.0]", `[-0,-0.0]`, ""},
		{"1.0 stays 1.0", "n: 1.0", `{"n":1.0}`, ""},
		{"exponent kept", "[1E5, 2.5e-3]", `[1E5,2.5e-3]`, ""},
		{"plus sign dropped", "[+1, +1.5]", `[1,1.5]`, ""},
		{"bare points get a zero", "[.5, 1., -.5e3]", `[0.5,1.0,-0.5e3]`, ""},
		{"hex, octal, binary in decimal", "[0x1F, 0o17, 017, 0b101]", `[31,15,15,5]`, ""},
		{"hex beyond uint64 is a string, as yaml.v3 resolves it", "n: 0xFFFFFFFFFFFFFFFFFF", `{"n":"0xFFFFFFFFFFFFFFFFFF"}`, ""},
		{"quoted number stays a string", `n: "12345678901234567890"`, `{"n":"12345678901234567890"}`, ""},
		{"tagged string stays a string", `n: !!str 1e400`, `{"n":"1e400"}`, ""},
		{"keys keep their order", "z: 1\na: 2\nm: 3", `{"z":1,"a":2,"m":3}`, ""},
		{"numeric keys become names", "200: ok\n404: no", `{"200":"ok","404":"no"}`, ""},
		{"scalars", "[null, ~, true, false, hello, 'yes', 2026-11-22]", `[null,null,true,false,"hello","yes","2026-11-22"]`, ""},
		{"html is not escaped", `s: "<a & b>"`, `{"s":"<a & b>"}`, ""},
		{"unicode and escapes", "s: \"é\\t\\\"\"", `{"s":"é\t\""}`, ""},
		{"nested", "a:\n  b: [1, {c: 2}]\n  d: {}\n  e: []", `{"a":{"b":[1,{"c":2}],"d":{},"e":[]}}`, ""},
		{"aliases expand", "a: &x {n: 1}\nb: *x", `{"a":{"n":1},"b":{"n":1}}`, ""},
		{"merge keys", "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3", `{"base":{"x":1,"y":2},"c":{"x":1,"y":3}}`, ""},
		{"infinity refused", "n: .inf", "", ".inf has no JSON form"},
		{"nan refused", "n: .nan", "", ".nan has no JSON form"},
		{"duplicate key refused", "a: 1\na: 2", "", `key "a" appears twice`},
		{"sequence key refused", "? [1]\n: x", "", "must be a scalar"},
		{"empty document refused", "", "", "empty document"},
		{"malformed yaml refused", "a: [1", "", "did not find expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Convert([]byte(tt.yaml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Convert(%q) error = %v, want one containing %q", tt.yaml, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Convert(%q): %v", tt.yaml, err)
			}
			if string(got) != tt.want {
				t.Fatalf("Convert(%q) = %s, want %s", tt.yaml, got, tt.want)
			}
			if !json.Valid(got) {
				t.Fatalf("Convert(%q) = %s, not valid JSON", tt.yaml, got)
			}
		})
	}
}

// TestConvertContract checks the contract itself: valid JSON, and the README's big
// integer example as written.
func TestConvertContract(t *testing.T) {
	src, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Convert(src)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(got) {
		t.Fatal("the contract's JSON form is not valid JSON")
	}
	if !strings.Contains(string(got), `"n":12345678901234567890`) {
		t.Fatal("the contract's JSON form lost the digits of 12345678901234567890")
	}
	// The same document as yaml.v3 reads it, through encoding/json (its numbers fit
	// Go's int, uint64 and float64 and come back unchanged).
	var fromYAML any
	if err := yaml.Unmarshal(src, &fromYAML); err != nil {
		t.Fatal(err)
	}
	viaGo, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decode(t, viaGo), decode(t, got)) {
		t.Fatal("the contract's JSON form holds another document than its YAML")
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// BenchmarkConvertContract measures the start-up cost of /openapi.json.
func BenchmarkConvertContract(b *testing.B) {
	src, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Convert(src); err != nil {
			b.Fatal(err)
		}
	}
}
