package graph_test

import (
	"os"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/graph"
	"go.yaml.in/yaml/v3"
)

// TestDocsExamples checks the graphs docs/models.md shows against members with the
// example iris versions' tensor calls, so that the documented format stays the one
// Check accepts.
func TestDocsExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/models.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "\n## Model graphs\n")
	if start < 0 {
		t.Fatal("docs/models.md has no section Model graphs")
	}
	section := doc[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	blocks := strings.Split(section, "```yaml\n")[1:]
	if len(blocks) < 2 {
		t.Fatalf("%d yaml examples in the section, want at least 2", len(blocks))
	}
	for i, b := range blocks {
		src, _, _ := strings.Cut(b, "```")
		var file struct {
			Graph yaml.Node `yaml:"graph"`
		}
		if err := yaml.Unmarshal([]byte(src), &file); err != nil {
			t.Fatalf("example %d: %v", i, err)
		}
		spec, err := graph.Decode(&file.Graph)
		if err != nil {
			t.Fatalf("example %d: %v", i, err)
		}
		if _, err := graph.Check(spec, newFleet()); err != nil {
			t.Errorf("example %d: %v", i, err)
		}
	}
}
