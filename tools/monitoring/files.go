package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

// The monitoring files, relative to the repository root.
const (
	DashboardFile = "deploy/grafana/dashboards/inferd.json"
	RulesFile     = "deploy/prometheus/rules.yaml"
)

// Query is one PromQL expression of a file, and where it is.
type Query struct {
	Where string // panel title and refId, or alert name
	Expr  string
}

// DashboardQueries returns the expression of every panel target, rows' panels
// included.
func DashboardQueries(path string) ([]Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type panel struct {
		Title   string
		Targets []struct{ RefID, Expr string }
		Panels  []json.RawMessage
	}
	var dash struct{ Panels []json.RawMessage }
	if err := json.Unmarshal(b, &dash); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Query
	var walk func([]json.RawMessage) error
	walk = func(raw []json.RawMessage) error {
		for _, r := range raw {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			for _, t := range p.Targets {
				out = append(out, Query{Where: fmt.Sprintf("panel %q target %s", p.Title, t.RefID), Expr: t.Expr})
			}
			if err := walk(p.Panels); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(dash.Panels)
}

// RuleQueries returns the expression of every alerting and recording rule.
func RuleQueries(path string) ([]Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rules struct {
		Groups []struct {
			Name  string
			Rules []struct{ Alert, Record, Expr string }
		}
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Query
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			out = append(out, Query{Where: fmt.Sprintf("group %s rule %s%s", g.Name, r.Alert, r.Record), Expr: r.Expr})
		}
	}
	return out, nil
}

// MetricNames parses expr and returns the metric names its selectors name, sorted.
func MetricNames(expr string) ([]string, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			if vs.Name == "" {
				err = fmt.Errorf("selector %s names no metric", vs)
			}
			names = append(names, vs.Name)
		}
		return nil
	})
	slices.Sort(names)
	return slices.Compact(names), err
}

// Exported returns the metric names a text exposition declares, with the series
// names of histograms and summaries (_bucket, _sum, _count).
func Exported(exposition string) map[string]bool {
	out := map[string]bool{}
	for line := range strings.SplitSeq(exposition, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "#" || f[1] != "TYPE" {
			continue
		}
		out[f[2]] = true
		if f[3] == "histogram" || f[3] == "summary" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				out[f[2]+s] = true
			}
		}
	}
	return out
}
