// Package monitoring checks the deployment's monitoring files against the code: every
// PromQL expression of the Grafana dashboard (deploy/grafana/dashboards/inferd.json)
// and of the alert rules (deploy/prometheus/rules.yaml) parses with the Prometheus
// parser and names only metrics a live inferd server or worker exports; promtool
// accepts what they export; and a real Prometheus scraping a real server and worker
// under load returns data for every panel. It lives in the tools module because the
// Prometheus module is too heavy for the main one.
package monitoring
