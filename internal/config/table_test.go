package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/config"
)

// TestGeneratedSettingsTables fails when a document's settings table is not the one
// config.Settings gives: `make docs` rewrites them.
func TestGeneratedSettingsTables(t *testing.T) {
	for _, file := range []string{"README.md", "docs/operations.md"} {
		t.Run(file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("../..", file))
			if err != nil {
				t.Fatal(err)
			}
			want, err := config.Splice(string(b), config.Table())
			if err != nil {
				t.Fatal(err)
			}
			if want != string(b) {
				t.Errorf("%s's settings table is stale: run `make docs` and commit the result", file)
			}
		})
	}
}

func TestSplice(t *testing.T) {
	table := "| a |\n"
	for _, tt := range []struct {
		name, doc, want string
		err             error
	}{
		{"replaces", "x\n" + config.TableBegin + "\nold\nrows\n" + config.TableEnd + "\ny\n", "x\n" + config.TableBegin + "\n| a |\n" + config.TableEnd + "\ny\n", nil},
		{"fills", config.TableBegin + "\n" + config.TableEnd + "\n", config.TableBegin + "\n| a |\n" + config.TableEnd + "\n", nil},
		{"no markers", "x\n", "", config.ErrNoTable},
		{"end before begin", config.TableEnd + "\n" + config.TableBegin + "\n", "", config.ErrNoTable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Splice(tt.doc, table)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Errorf("got %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestTableRows: one row per setting, in order, after the header.
func TestTableRows(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(config.Table(), "\n"), "\n")
	if len(lines) != 2+len(config.Settings()) {
		t.Fatalf("%d lines for %d settings", len(lines), len(config.Settings()))
	}
	for i, s := range config.Settings() {
		if !strings.HasPrefix(lines[2+i], "| `"+s.Name+"` | ") {
			t.Errorf("row %d: %s, want %s", i+1, lines[2+i], s.Name)
		}
	}
}
