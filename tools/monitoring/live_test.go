package monitoring

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// promtool check metrics is clean on what a live server and worker export, after
// traffic has made every labelled series appear.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := need(t, "promtool", "prometheus")
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	load(ctx, s.server.addr)
	for _, p := range []*proc{s.server, s.worker} {
		promtoolCheck(t, promtool, p.name, get(t, "http://"+p.addr+"/metrics"))
	}
}

// A real Prometheus scraping a real server and worker under load returns data for
// every panel's query, every query names only metrics they export, and the alert
// rules load.
func TestDashboardAgainstPrometheus(t *testing.T) {
	prometheus := need(t, "prometheus", "prometheus")
	queries, err := DashboardQueries(filepath.Join(root, DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := RuleQueries(filepath.Join(root, RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	s := startStack(t)

	dir := t.TempDir()
	rulesAbs, _ := filepath.Abs(filepath.Join(root, RulesFile))
	config := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [%q]
scrape_configs:
  - job_name: inferd
    static_configs: [{targets: [%q]}]
  - job_name: inferd-worker
    static_configs: [{targets: [%q]}]
`, rulesAbs, s.server.addr, s.worker.addr)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	promAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	prom := startProc(t, "prometheus", promAddr, nil, prometheus,
		"--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	prom.waitHTTP(t, "/-/ready", 60*time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	loaded := make(chan struct{})
	go func() { load(ctx, s.server.addr); close(loaded) }()
	defer func() { cancel(); <-loaded }()

	t.Run("rules load", func(t *testing.T) {
		var got struct {
			Data struct {
				Groups []struct {
					Rules []struct{ Name, Health, LastError string }
				}
			}
		}
		n, healthy := 0, 0
		testkit.Eventually(t, 30*time.Second, func() bool {
			got.Data.Groups = nil
			if err := json.Unmarshal([]byte(get(t, "http://"+promAddr+"/api/v1/rules")), &got); err != nil {
				t.Fatal(err)
			}
			n, healthy = 0, 0
			for _, g := range got.Data.Groups {
				for _, r := range g.Rules {
					n++
					if r.Health == "ok" {
						healthy++
					}
				}
			}
			return n == len(rules) && healthy == n
		}, "%d rules loaded and healthy: %s", len(rules), func() string {
			return fmt.Sprintf("%d rules, %d healthy: %+v", n, healthy, got.Data.Groups)
		})
		fmt.Printf("prometheus: %d alert rules loaded and evaluated\n", n)
	})

	// Every panel: a few scrapes under load, then each query must return a sample
	// that is a number.
	pending := slices.Clone(queries)
	deadline := time.Now().Add(90 * time.Second)
	var last map[string]string
	for len(pending) > 0 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Second) // Prometheus scrapes the child inferd and worker meanwhile (every second)
		last = map[string]string{}
		var still []Query
		for _, q := range pending {
			if ok, why := hasData(t, promAddr, q.Expr); !ok {
				still = append(still, q)
				last[q.Where] = why
			}
		}
		pending = still
	}
	for _, q := range pending {
		t.Errorf("%s: no data from Prometheus for %s (%s)", q.Where, q.Expr, last[q.Where])
	}
	if len(pending) == 0 {
		fmt.Printf("prometheus: all %d dashboard queries return data from a live server and worker under load\n", len(queries))
	}

	// The scrapes are up and the worker's heartbeat is counted by now: the alerts that
	// watch for a stack that is down, or whose workers go unscraped, must be quiet, which
	// they would not be if the rules matched other job names than the scrape
	// configuration's.
	t.Run("no down alert on a live stack", func(t *testing.T) {
		var got struct {
			Data struct {
				Groups []struct {
					Rules []struct{ Name, State string }
				}
			}
		}
		if err := json.Unmarshal([]byte(get(t, "http://"+promAddr+"/api/v1/rules")), &got); err != nil {
			t.Fatal(err)
		}
		quiet := map[string]bool{"InferdDown": false, "InferdInstanceDown": false, "InferdNoWorkers": false, "InferdJobRunsNotScraped": false}
		for _, g := range got.Data.Groups {
			for _, r := range g.Rules {
				if _, ok := quiet[r.Name]; ok {
					quiet[r.Name] = true
					if r.State != "inactive" {
						t.Errorf("%s is %s with a server and a worker up", r.Name, r.State)
					}
				}
			}
		}
		for name, seen := range quiet {
			if !seen {
				t.Errorf("Prometheus has no rule %s", name)
			}
		}
	})

	// After the load, so that every labelled series has appeared.
	t.Run("queries name exported metrics", func(t *testing.T) {
		exported := Exported(get(t, "http://"+s.server.addr+"/metrics"))
		for name := range Exported(get(t, "http://"+s.worker.addr+"/metrics")) {
			exported[name] = true
		}
		checked := 0
		for _, q := range append(queries, rules...) {
			names, err := MetricNames(q.Expr)
			checked += len(names)
			if err != nil {
				t.Errorf("%s: %v", q.Where, err)
			}
			for _, n := range names {
				if !exported[n] && !scrapeSeries[n] {
					t.Errorf("%s: %s is exported by neither the server nor the worker", q.Where, n)
				}
			}
		}
		if !t.Failed() {
			fmt.Printf("dashboard and rules: %d metric names in %d queries, each exported by a live server or worker\n", checked, len(queries)+len(rules))
		}
	})
}

// scrapeSeries are the series Prometheus writes itself for each scrape, which the
// rules watch to tell a process that is down.
var scrapeSeries = map[string]bool{"up": true}

// hasData runs an instant query and says whether it returned a sample that is a
// number (not NaN), or why not.
func hasData(t *testing.T, promAddr, expr string) (bool, string) {
	t.Helper()
	var got struct {
		Status string
		Error  string
		Data   struct {
			ResultType string
			Result     []struct{ Value [2]any }
		}
	}
	body := get(t, "http://"+promAddr+"/api/v1/query?query="+url.QueryEscape(expr))
	if err := json.Unmarshal([]byte(body), &got); err != nil || got.Status != "success" {
		t.Fatalf("query %s: %v %s", expr, err, body)
	}
	for _, r := range got.Data.Result {
		if v, ok := r.Value[1].(string); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) {
				return true, ""
			}
		}
	}
	return false, fmt.Sprintf("%d series, none a number: %s", len(got.Data.Result), strings.TrimSpace(body))
}
