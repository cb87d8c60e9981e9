package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/config"
)

// TestGeneratedSettingsTable fails when docs/settings.md's table is not the one
// config.Settings gives (`make docs` rewrites it), or when another document of the
// repository holds a copy: the others link to it.
func TestGeneratedSettingsTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/settings.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := config.Splice(string(b), config.Table())
	if err != nil {
		t.Fatal(err)
	}
	if want != string(b) {
		t.Error("docs/settings.md's settings table is stale: run `make docs` and commit the result")
	}
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != "../.."):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".md") || path == filepath.Join("../..", "docs", "settings.md"):
			return nil
		}
		doc, err := os.ReadFile(path)
		if err == nil && (strings.Contains(string(doc), config.TableBegin) || strings.Contains(string(doc), "| `MAX_REQUEST_BYTES` |")) {
			t.Errorf("%s holds a settings table: link to docs/settings.md instead", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
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
