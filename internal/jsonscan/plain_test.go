package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzPlain: Plain holds of exactly the ASCII strings that encoding/json (without HTML
// escaping) writes as themselves between quotes.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", "echo", "v1.2-b_3", `a"b`, `a\b`, "a\x01", "a\x7f", "caf\u00e9", "\xff", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < 0x80
		}
		want := ascii && buf.String() == `"`+s+"\"\n"
		if got := Plain(s); got != want {
			t.Fatalf("Plain(%q) = %v, want %v (encoding/json writes %s)", s, got, want, buf.Bytes())
		}
		if Plain([]byte(s)) != want {
			t.Fatalf("Plain([]byte(%q)) differs from Plain(%q)", s, s)
		}
	})
}
