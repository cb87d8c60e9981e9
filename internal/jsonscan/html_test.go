package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzUnescapeHTML: UnescapeHTML gives of encoding/json's escaped text what its encoder
// writes with SetEscapeHTML(false), and leaves the value of any valid JSON text as
// encoding/json decodes it.
func FuzzUnescapeHTML(f *testing.F) {
	for _, s := range []string{`<a href="x&y">`, `\u003c`, `\\u003c`, `"\\\u003c"`, `{"a<":"&>"}`, `["\u0026\u003e", 1]`, `\`, "\u2028", "\xff<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		escaped, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var plain bytes.Buffer
		enc := json.NewEncoder(&plain)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := UnescapeHTML(escaped), bytes.TrimSuffix(plain.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
			t.Fatalf("UnescapeHTML(%s) = %s, want %s", escaped, got, want)
		}
		raw := []byte(s)
		if !json.Valid(raw) {
			return
		}
		var before, after any
		if err := json.Unmarshal(raw, &before); err != nil {
			return // a number beyond a double
		}
		if err := json.Unmarshal(UnescapeHTML(raw), &after); err != nil || !reflect.DeepEqual(before, after) {
			t.Fatalf("UnescapeHTML(%s) = %s, which decodes to %v (%v), not %v", raw, UnescapeHTML(raw), after, err, before)
		}
	})
}
