package config_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/config"
)

// TestReadmeSettingsTable checks that README.md's Settings table is config.Settings:
// the same variables in the same order, each with the same default and meaning, so
// the README and --help (printed from the same table) never disagree.
func TestReadmeSettingsTable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Settings\n")
	if start < 0 {
		t.Fatal(`README.md has no "## Settings" section`)
	}
	section := text[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	var got []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| `") {
			got = append(got, line)
		}
	}
	var want []string
	for _, s := range config.Settings() {
		want = append(want, fmt.Sprintf("| `%s` | %s | %s |", s.Name, s.DefaultText(), s.Meaning))
	}
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Errorf("README.md lacks the row\n%s", want[i])
		case i >= len(want):
			t.Errorf("README.md has a row for no setting\n%s", got[i])
		case got[i] != want[i]:
			t.Errorf("README.md row %d\n%s\nwant\n%s", i+1, got[i], want[i])
		}
	}
	if t.Failed() {
		t.Logf("the rows config.Settings gives:\n%s", strings.Join(want, "\n"))
	}
}
