package config

import (
	"errors"
	"fmt"
	"strings"
)

// The markers around the generated settings table in docs/settings.md: `make docs`
// rewrites what lies between them.
const (
	TableBegin = "<!-- settings table: generated from internal/config by `make docs`; do not edit -->"
	TableEnd   = "<!-- end of the settings table -->"
)

// ErrNoTable marks a document without the table's markers.
var ErrNoTable = errors.New("no settings table markers")

// Table is Settings as a Markdown table, the one docs/settings.md shows.
func Table() string {
	var b strings.Builder
	b.WriteString("| Variable | Default | Meaning |\n|---|---|---|\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.Name, s.DefaultText(), s.Meaning)
	}
	return b.String()
}

// Splice returns doc with the lines between TableBegin and TableEnd replaced by table.
func Splice(doc, table string) (string, error) {
	i := strings.Index(doc, TableBegin+"\n")
	j := strings.Index(doc, TableEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("%w: want a line %s, then a line %s", ErrNoTable, TableBegin, TableEnd)
	}
	start := i + len(TableBegin) + 1
	return doc[:start] + table + doc[j:], nil
}
