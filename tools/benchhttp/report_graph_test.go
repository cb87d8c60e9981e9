package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWriteGraphs: the section's rows with p90 beside p50 and p99, and issue 39's
// targets paired within rounds, from a run whose graph of one step does 0.95x and
// 0.93x iris v1's req/s at 64 connections with 1.1x its p99, and whose ensemble beats
// the client's two calls in turn.
func TestWriteGraphs(t *testing.T) {
	row := func(name string, conns, reqs int, p99 time.Duration) Result {
		return Result{Case: name, Conns: conns, Requests: reqs, Items: reqs, Elapsed: time.Second, P50: p99 / 4, P90: p99 / 2, P99: p99}
	}
	ms := time.Millisecond
	runs := [][]Result{
		{row(CaseIris, 64, 10000, 10*ms), row(CaseIris, 64, 10000, 10*ms)},
		{row(CaseGraphOne, 64, 9500, 11*ms), row(CaseGraphOne, 64, 9300, 11*ms)},
		{row(CaseEnsemble, 64, 6000, 12*ms), row(CaseEnsemble, 64, 6000, 12*ms)},
		{row(CaseEnsemblePairs, 64, 4000, 20*ms), row(CaseEnsemblePairs, 64, 4000, 20*ms)},
	}
	rep := &Report{Rounds: 2, Runs: runs}
	for _, rs := range runs {
		rep.Results = append(rep.Results, Median(rs))
	}
	if !rep.hasGraphs() {
		t.Fatal("hasGraphs is false for a run with the graph cases")
	}
	var b bytes.Buffer
	rep.WriteGraphs(&b, false)
	md := b.String()
	if !strings.HasPrefix(md, graphsSectionStart+"\n") || !strings.HasSuffix(md, graphsSectionEnd+"\n") {
		t.Errorf("the section is not between its markers:\n%s", md)
	}
	for _, want := range []string{
		"| " + CaseGraphOne + " | 64 | 9.30k | 2.75 ms | 5.50 ms | 11.00 ms |",
		"| graph of one step / iris v1 alone, req/s at 64 connections | at least 0.9x | 0.94x | yes |",
		"| graph of one step / iris v1 alone, p99 at 64 connections | at most 1.2x | 1.10x | yes |",
		"| iris-ensemble / its members in turn by the client, req/s at 64 connections | more than 1x | 1.50x | yes |",
		"| iris-ensemble / its members in turn by the client, p50 at 1 connection | below 1x | n/a | n/a |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
}
