package main

import (
	"fmt"
	"io"
	"slices"
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

// tailSectionCases are the rows the section shows; tailSectionWords what `-section
// tail` runs without -cases.
var (
	tailSectionCases = []string{Baseline, CaseHealthBare, CaseHealth, CaseEcho, CaseIris}
	tailSectionWords = []string{"get /health", "echo /predict", "iris v1 /predict"}
)

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
	fmt.Fprintln(w)
	if header {
		r.writeSectionRun(w)
	}
	r.writeLatencyTable(w, tailSectionCases)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Issue 41's targets in this run")
	fmt.Fprintln(w)
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
			r.pairedTarget(c.what+", p90 at 64 connections", "at most 1.5x", c.a, c.b, manyConns, p90, atMost),
			r.pairedTarget(c.what+", p99 at 64 connections", "at most 1.5x", c.a, c.b, manyConns, p99, atMost))
	}
	ts = append(ts, r.pairedTarget("iris v1 `/predict` / the bare JSON echo, req/s at 64 connections", "at least 0.75x", CaseIris, Baseline, manyConns, reqPerSec, func(v float64) bool { return v >= 0.75 }))
	writeTargetTable(w, ts)
	fmt.Fprintln(w, tailSectionEnd)
}
