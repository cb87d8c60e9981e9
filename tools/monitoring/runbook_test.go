package monitoring

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/model/timestamp"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/template"
	"go.yaml.in/yaml/v3"
)

// The files the rules refer to, relative to the repository root.
const (
	AlertsDoc        = "docs/alerts.md"
	PrometheusConfig = "deploy/prometheus/prometheus.yml"
)

// defaultRunbook is where runbook_url points when the evaluating Prometheus has no
// runbook_base_url external label.
const defaultRunbook = "https://github.com/inferd/inferd/blob/main/docs/alerts.md"

// alertRules parses rules.yaml as Prometheus does and returns its alerting rules.
func alertRules(t *testing.T) []rulefmt.Rule {
	t.Helper()
	groups, errs := rulefmt.ParseFile(filepath.Join(root, RulesFile), false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.Default())
	if len(errs) > 0 {
		t.Fatalf("%s: %v", RulesFile, errs)
	}
	var out []rulefmt.Rule
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no alerting rule", RulesFile)
	}
	return out
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown file:
// lower case, punctuation dropped, spaces as '-'.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		out[strings.ReplaceAll(drop.ReplaceAllString(title, ""), " ", "-")] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunbookLinks evaluates every alert with Prometheus's own rule code, as a
// Prometheus with and without the external label runbook_base_url would: its
// runbook_url must be an absolute link to the alert's section of docs/alerts.md, at
// the configured base, else at inferd's repository. promtool (Debian's 2.42) cannot
// set external labels in rules_test.yaml, so the configured case is shown here.
func TestRunbookLinks(t *testing.T) {
	anchors := headingAnchors(t, filepath.Join(root, AlertsDoc))
	for _, tc := range []struct {
		name     string
		external labels.Labels
		base     string
	}{
		{"runbook_base_url set", labels.FromStrings("runbook_base_url", "https://runbooks.example.com/inferd/alerts.md", "cluster", "eu-1"), "https://runbooks.example.com/inferd/alerts.md"},
		{"no external labels", labels.EmptyLabels(), defaultRunbook},
		{"other external labels only", labels.FromStrings("cluster", "eu-1"), defaultRunbook},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range alertRules(t) {
				// A series of the labels the rules' expressions give.
				smpl := promql.Sample{Metric: labels.FromStrings("job", "inferd", "instance", "server-1:8080", "model", "iris", "version", "v1"), F: 1}
				anchor := strings.ToLower(r.Alert)
				want := tc.base + "#" + anchor
				if got := expandAnnotation(t, r.Annotations["runbook_url"], smpl, tc.external); got != want {
					t.Errorf("%s: runbook_url %q, want %q", r.Alert, got, want)
				}
				if !anchors[anchor] {
					t.Errorf("%s: %s has no section #%s", r.Alert, AlertsDoc, anchor)
				}
				for _, a := range []string{"summary", "description"} {
					if v := expandAnnotation(t, r.Annotations[a], smpl, tc.external); v == "" || strings.Contains(v, "<no value>") {
						t.Errorf("%s: annotation %s is %q", r.Alert, a, v)
					}
				}
			}
		})
	}
}

// expandAnnotation expands an annotation's template as Prometheus's alerting rules
// do (rules.AlertingRule.Eval: the same data and the same variables before the text).
func expandAnnotation(t *testing.T, text string, smpl promql.Sample, external labels.Labels) string {
	t.Helper()
	defs := "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}"
	data := template.AlertTemplateData(smpl.Metric.Map(), external.Map(), "", smpl)
	out, err := template.NewTemplateExpander(context.Background(), defs+text, "annotation", data,
		model.Time(timestamp.FromTime(time.Now())), nil, nil, nil).Expand()
	if err != nil {
		t.Fatalf("expanding %q: %v", text, err)
	}
	return out
}

// TestRulesMatchScrapeJobs: every job a rule matches is a scrape job of
// deploy/prometheus/prometheus.yml (and of the live check's configuration): a rule
// on a job Prometheus does not have would never fire.
func TestRulesMatchScrapeJobs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, PrometheusConfig))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Global struct {
			ExternalLabels map[string]string `yaml:"external_labels"`
		}
		ScrapeConfigs []struct {
			JobName string `yaml:"job_name"`
		} `yaml:"scrape_configs"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	var jobs []string
	for _, sc := range cfg.ScrapeConfigs {
		jobs = append(jobs, sc.JobName)
	}
	if base := cfg.Global.ExternalLabels["runbook_base_url"]; !strings.HasPrefix(base, "https://") && !strings.HasPrefix(base, "http://") {
		t.Errorf("%s: external label runbook_base_url %q, want an absolute http(s) URL", PrometheusConfig, base)
	}
	matched := 0
	for _, r := range alertRules(t) {
		expr, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr)
		if err != nil {
			t.Fatal(err)
		}
		parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
			vs, ok := n.(*parser.VectorSelector)
			if !ok {
				return nil
			}
			for _, m := range vs.LabelMatchers {
				if m.Name != "job" {
					continue
				}
				matched++
				hit := slices.ContainsFunc(jobs, m.Matches)
				if !hit {
					t.Errorf("%s: %s matches no scrape job of %s %v", r.Alert, m, PrometheusConfig, jobs)
				}
			}
			return nil
		})
	}
	if matched == 0 {
		t.Error("no rule matches a job: the rules do not watch the scrapes (up)")
	}
}
