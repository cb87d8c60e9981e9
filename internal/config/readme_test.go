package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/readmetest"
)

// TestReadmeSettingsTable checks that docs/settings.md's table is config.Settings:
// the same variables in the same order, each with the same default and meaning, so
// the documentation and --help (printed from the same table) never disagree.
func TestReadmeSettingsTable(t *testing.T) {
	section := readmetest.FileSection(t, "docs/settings.md", "## Every setting")
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
			t.Errorf("docs/settings.md lacks the row\n%s", want[i])
		case i >= len(want):
			t.Errorf("docs/settings.md has a row for no setting\n%s", got[i])
		case got[i] != want[i]:
			t.Errorf("docs/settings.md row %d\n%s\nwant\n%s", i+1, got[i], want[i])
		}
	}
	if t.Failed() {
		t.Logf("the rows config.Settings gives:\n%s", strings.Join(want, "\n"))
	}
}
