package readmetest_test

import (
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name, want, got string
		ok              bool
	}{
		{"same JSON", `{"a":1}`, `{"a":1}`, true},
		{"extra members", `{"a":1}`, `{"a":1,"request_id":"x"}`, true},
		{"missing member", `{"a":1,"b":2}`, `{"a":1}`, false},
		{"numbers digit for digit", `{"n":12345678901234567890}`, `{"n":12345678901234567000}`, false},
		{"any value", `{"id":"..."}`, `{"id":"0b6f"}`, true},
		{"any value needs one", `{"id":"..."}`, `{}`, false},
		{"open array", `[1, ...]`, `[1,2,3]`, true},
		{"open array keeps its head", `[1, ...]`, `[2,3]`, false},
		{"closed array", `[1,2]`, `[1,2,3]`, false},
		{"text with a gap", `inferctl: 404 x (request ...)`, `inferctl: 404 x (request 12ab)`, true},
		{"text differs", `inferctl: 404 x`, `inferctl: 400 x`, false},
		{"JSON wanted, text got", `{"a":1}`, `a=1`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := readmetest.Line(tt.want, tt.got); (err == nil) != tt.ok {
				t.Errorf("Line(%q, %q) = %v, want ok=%v", tt.want, tt.got, err, tt.ok)
			}
		})
	}
}

func TestLinesCountsLines(t *testing.T) {
	if err := readmetest.Lines("a\nb\n", "a\n"); err == nil {
		t.Error("one line matched two")
	}
	if err := readmetest.Lines("a\n...\n", "a\nanything\n"); err != nil {
		t.Error(err)
	}
}

func TestSection(t *testing.T) {
	s := readmetest.FileSection(t, "docs/settings.md", "## Every setting")
	if !strings.HasPrefix(s, "## Every setting\n") || strings.Contains(s[1:], "\n## ") || !strings.Contains(s, "| `PORT` |") {
		t.Errorf("section:\n%.300s", s)
	}
}
