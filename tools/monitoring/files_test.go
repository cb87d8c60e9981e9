package monitoring

import (
	"path/filepath"
	"testing"
)

// root is the repository root, where the deploy files are.
var root = filepath.Join("..", "..")

func TestEveryExpressionParses(t *testing.T) {
	dash, err := DashboardQueries(filepath.Join(root, DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := RuleQueries(filepath.Join(root, RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(dash) < 10 || len(rules) < 5 {
		t.Fatalf("%d dashboard queries and %d rules: the files were not read whole", len(dash), len(rules))
	}
	for _, q := range append(dash, rules...) {
		t.Run(q.Where, func(t *testing.T) {
			names, err := MetricNames(q.Expr)
			if err != nil {
				t.Fatalf("%s: %v", q.Expr, err)
			}
			if len(names) == 0 {
				t.Errorf("%s names no metric", q.Expr)
			}
		})
	}
}

// The parser check itself: a broken expression and a selector without a name fail.
func TestMetricNamesRejects(t *testing.T) {
	tests := []struct {
		expr string
		want []string
		ok   bool
	}{
		{`sum by (model) (rate(inferd_predictions_total[5m])) / sum(inferd_x)`, []string{"inferd_predictions_total", "inferd_x"}, true},
		{`sum(rate(inferd_predictions_total[5m])`, nil, false},
		{`{job="inferd"}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := MetricNames(tt.expr)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if tt.ok && (len(got) != len(tt.want) || got[0] != tt.want[0] || got[1] != tt.want[1]) {
				t.Errorf("names %v, want %v", got, tt.want)
			}
		})
	}
}
