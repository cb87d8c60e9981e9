package main

import (
	"fmt"
	"io"
	"slices"
)

// The graphs section of benchmarks.md lies between these markers, so that a run of
// `-section graphs` can rewrite it alone.
const (
	graphsSectionStart = "<!-- bench-graphs -->"
	graphsSectionEnd   = "<!-- /bench-graphs -->"
)

// graphsSectionCases are the rows the section shows; graphsSectionWords what
// `-section graphs` runs without -cases.
var (
	graphsSectionCases = []string{CaseIris, CaseGraphOne, CaseEnsemble, CaseEnsemblePairs}
	graphsSectionWords = []string{"iris v1 /predict", "graph"}
)

func (r *Report) hasGraphs() bool {
	return slices.ContainsFunc(r.Results, func(x Result) bool { return x.Case == CaseGraphOne && x.NA == "" })
}

// WriteGraphs writes the graphs section, markers included: a graph of one step beside
// its model alone, iris-ensemble beside its members called in turn by the client, and
// issue 39's targets as ratios paired within rounds.
func (r *Report) WriteGraphs(w io.Writer, header bool) {
	fmt.Fprintln(w, graphsSectionStart)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Model graphs")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "One iris flower by `/predict`: to iris v1; to a graph of one step calling iris v1,")
	fmt.Fprintln(w, "with iris v1's steps around it, so it answers what iris v1 does and costs what the")
	fmt.Fprintln(w, "graph adds (a tensor call to its member: its own route, steps and metrics); to")
	fmt.Fprintln(w, "`iris-ensemble`, which calls iris v1 and v2 at once and averages them; and, for")
	fmt.Fprintln(w, "that one, what a client does without a graph: iris v1's `/predict`, then v2's, on")
	fmt.Fprintln(w, "one connection (a request of that row is the pair).")
	fmt.Fprintln(w)
	if header {
		r.writeSectionRun(w)
	}
	r.writeLatencyTable(w, graphsSectionCases)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Issue 39's targets in this run")
	fmt.Fprintln(w)
	p99 := func(x Result) float64 { return float64(x.P99) }
	writeTargetTable(w, []target{
		r.pairedTarget("graph of one step / iris v1 alone, req/s at 64 connections", "at least 0.9x", CaseGraphOne, CaseIris, manyConns, reqPerSec, func(v float64) bool { return v >= 0.9 }),
		r.pairedTarget("graph of one step / iris v1 alone, p99 at 64 connections", "at most 1.2x", CaseGraphOne, CaseIris, manyConns, p99, func(v float64) bool { return v <= 1.2 }),
		r.pairedTarget("iris-ensemble / its members in turn by the client, req/s at 64 connections", "more than 1x", CaseEnsemble, CaseEnsemblePairs, manyConns, reqPerSec, func(v float64) bool { return v > 1 }),
		r.pairedTarget("iris-ensemble / its members in turn by the client, p50 at 1 connection", "below 1x", CaseEnsemble, CaseEnsemblePairs, 1, p50, func(v float64) bool { return v < 1 }),
	})
	fmt.Fprintln(w, graphsSectionEnd)
}

// writeLatencyTable writes the rows of cases, in that order: rate, p50, p90, p99 and
// the server's CPU time per request.
func (r *Report) writeLatencyTable(w io.Writer, cases []string) {
	fmt.Fprintln(w, "| case | connections | req/s | p50 | p90 | p99 | server CPU/req | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, name := range cases {
		for _, x := range r.Results {
			if x.Case != name {
				continue
			}
			if x.NA != "" {
				fmt.Fprintf(w, "| %s | %d | n/a: %s | | | | | |\n", x.Case, x.Conns, x.NA)
				continue
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %d |\n", x.Case, x.Conns, rate(x.ReqPerSec()),
				dur(x.P50), dur(x.P90), dur(x.P99), cpuDur(x.ServerCPU, x.ServerCPUPerReq()), x.Errors)
		}
	}
}
