package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The tail section of benchmarks.md lies between these markers, so that a run of
// `-section tail` can rewrite it alone.
const (
	tailSectionStart = "<!-- bench-tail -->"
	tailSectionEnd   = "<!-- /bench-tail -->"
)

// The tail cases: a liveness probe to inferd and to the baseline's process, which
// answers it as net/http alone does.
const (
	CaseHealth     = "inferd GET /health"
	CaseHealthBare = "baseline: net/http GET /health"
)

// sharedSuffix ends the names of the tail section's cases measured again under the
// default scheduler, in a run that isolates the others (Config.Isolate).
const sharedSuffix = ", shared scheduler"

// tailSectionCases are the rows the section shows (and, with sharedSuffix, its second
// table's); tailSectionWords what `-section tail` runs without -cases.
var (
	tailSectionCases = []string{Baseline, CaseHealthBare, CaseHealth, CaseEcho, CaseIris}
	tailSectionWords = []string{"get /health", "echo /predict", "iris v1 /predict", strings.TrimPrefix(sharedSuffix, ", ")}
)

func shared(cases []string) []string {
	out := make([]string, len(cases))
	for i, c := range cases {
		out[i] = c + sharedSuffix
	}
	return out
}

func (r *Report) hasTail() bool {
	return slices.ContainsFunc(r.Results, func(x Result) bool { return x.Case == CaseHealth && x.NA == "" })
}

// WriteTail writes the tail section, markers included: p50, p90 and p99 of what every
// request passes through (/health), of echo's /predict and of iris's, beside the bare
// server, and issue 41's targets as ratios paired within rounds.
func (r *Report) WriteTail(w io.Writer, header bool) {
	fmt.Fprintln(w, tailSectionStart)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Tail latency")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "`GET /health`, which does almost nothing, to inferd and to the baseline's process")
	fmt.Fprintln(w, "(net/http alone, the same answer); echo's and iris v1's `/predict` beside the")
	fmt.Fprintln(w, "baseline's JSON echo. What every request passes through (listener, middlewares,")
	fmt.Fprintln(w, "timers, locks) shows in `/health`'s tail; a model's cost in the others'.")
	fmt.Fprintln(w, "Isolated (`-isolate`: the load generator and the server under SCHED_RR), the")
	fmt.Fprintln(w, "latencies are the servers' own; the second table repeats the cases under the")
	fmt.Fprintln(w, "default scheduler, where on two cores shared with other work the slices the")
	fmt.Fprintln(w, "other processes get set every server's tail, the bare one's too.")
	fmt.Fprintln(w)
	if header {
		r.writeSectionRun(w)
	}
	r.writeLatencyTable(w, tailSectionCases)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Issue 41's targets in this run")
	fmt.Fprintln(w)
	writeTargetTable(w, r.tailTargets(""))
	if !r.hasCase(CaseHealth + sharedSuffix) {
		fmt.Fprintln(w, tailSectionEnd)
		return
	}
	fmt.Fprintln(w, "### The same cases under the default scheduler")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Measured in the same rounds, with the load generator and the servers left to the")
	fmt.Fprintln(w, "default scheduler beside whatever else the machine runs: the slices other processes")
	fmt.Fprintln(w, "take enter these latencies, the bare server's as much as inferd's.")
	fmt.Fprintln(w)
	r.writeLatencyTable(w, shared(tailSectionCases))
	fmt.Fprintln(w)
	writeTargetTable(w, r.tailTargets(sharedSuffix))
	fmt.Fprintln(w, tailSectionEnd)
}

// tailTargets are issue 41's targets between the rows whose names end in suffix.
func (r *Report) tailTargets(suffix string) []target {
	p90 := func(x Result) float64 { return float64(x.P90) }
	p99 := func(x Result) float64 { return float64(x.P99) }
	atMost := func(v float64) bool { return v <= 1.5 }
	var ts []target
	for _, c := range []struct{ what, a, b string }{
		{"`GET /health` / the bare server's", CaseHealth, CaseHealthBare},
		{"echo `/predict` / the bare JSON echo", CaseEcho, Baseline},
		{"iris v1 `/predict` / the bare JSON echo", CaseIris, Baseline},
	} {
		ts = append(ts,
			r.pairedTarget(c.what+", p90 at 64 connections", "at most 1.5x", c.a+suffix, c.b+suffix, manyConns, p90, atMost),
			r.pairedTarget(c.what+", p99 at 64 connections", "at most 1.5x", c.a+suffix, c.b+suffix, manyConns, p99, atMost))
	}
	return append(ts, r.pairedTarget("iris v1 `/predict` / the bare JSON echo, req/s at 64 connections", "at least 0.75x", CaseIris+suffix, Baseline+suffix, manyConns, reqPerSec, func(v float64) bool { return v >= 0.75 }))
}

func (r *Report) hasCase(name string) bool {
	return slices.ContainsFunc(r.Results, func(x Result) bool { return x.Case == name && x.NA == "" })
}
