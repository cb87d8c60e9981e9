package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeBenchmarks keeps docs/development.md's Benchmarks section true: each flag it names with
// a default exists with that default, the BENCH_ARGS of its examples parse, and the
// Makefile has the target it runs.
func TestReadmeBenchmarks(t *testing.T) {
	b, err := os.ReadFile("../../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Benchmarks\n")
	if start < 0 {
		t.Fatal(`docs/development.md has no "## Benchmarks" section`)
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}

	documented := regexp.MustCompile("`-([a-z-]+)` \\(([^);]*)").FindAllStringSubmatch(section, -1)
	if len(documented) == 0 {
		t.Fatal("the Benchmarks section names no flags")
	}
	for _, m := range documented {
		t.Run("flag -"+m[1], func(t *testing.T) {
			fs, _ := newFlagSet()
			f := fs.Lookup(m[1])
			if f == nil {
				t.Fatalf("docs/development.md names -%s, which benchhttp does not have", m[1])
			}
			if f.DefValue != m[2] {
				t.Errorf("docs/development.md says -%s defaults to %q; it is %q", m[1], m[2], f.DefValue)
			}
		})
	}
	for _, m := range regexp.MustCompile(`BENCH_ARGS="([^"]*)"`).FindAllStringSubmatch(section, -1) {
		t.Run("BENCH_ARGS "+m[1], func(t *testing.T) {
			fs, _ := newFlagSet()
			if err := fs.Parse(strings.Fields(m[1])); err != nil {
				t.Errorf("the BENCH_ARGS of docs/development.md do not parse: %v", err)
			}
		})
	}
	t.Run("make target", func(t *testing.T) {
		mk, err := os.ReadFile("../../Makefile")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(mk), "\nbench-http:") || !strings.Contains(text, "| `make bench-http` |") {
			t.Error("docs/development.md runs make bench-http: the Makefile needs the target and the Commands table its line")
		}
	})
}
