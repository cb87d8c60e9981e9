package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWriteTail: the section's rows with p90, and issue 41's targets paired within
// rounds, from a run whose /health tail is 1.4x the bare server's at p90 and 2x at p99,
// and whose iris does 0.7x the bare echo's req/s; and the same under the default
// scheduler in a second table, whose /health p99 is 3x the bare server's.
func TestWriteTail(t *testing.T) {
	row := func(name string, reqs int, p90, p99 time.Duration) Result {
		return Result{Case: name, Conns: 64, Requests: reqs, Items: reqs, Elapsed: time.Second, P50: time.Millisecond, P90: p90, P99: p99}
	}
	ms := time.Millisecond
	runs := [][]Result{
		{row(Baseline, 10000, 10*ms, 20*ms)},
		{row(CaseHealthBare, 20000, 5*ms, 10*ms)},
		{row(CaseHealth, 18000, 7*ms, 20*ms)},
		{row(CaseEcho, 9000, 12*ms, 25*ms)},
		{row(CaseIris, 7000, 14*ms, 28*ms)},
		{row(Baseline+sharedSuffix, 8000, 20*ms, 40*ms)},
		{row(CaseHealthBare+sharedSuffix, 15000, 10*ms, 20*ms)},
		{row(CaseHealth+sharedSuffix, 12000, 20*ms, 60*ms)},
		{row(CaseEcho+sharedSuffix, 7000, 25*ms, 50*ms)},
		{row(CaseIris+sharedSuffix, 5000, 30*ms, 60*ms)},
	}
	rep := &Report{Rounds: 1, Runs: runs}
	for _, rs := range runs {
		rep.Results = append(rep.Results, Median(rs))
	}
	if !rep.hasTail() {
		t.Fatal("hasTail is false for a run with the /health case")
	}
	var b bytes.Buffer
	rep.WriteTail(&b, false)
	md := b.String()
	if !strings.HasPrefix(md, tailSectionStart+"\n") || !strings.HasSuffix(md, tailSectionEnd+"\n") {
		t.Errorf("the section is not between its markers:\n%s", md)
	}
	for _, want := range []string{
		"| inferd GET /health | 64 | 18.0k | 1.00 ms | 7.00 ms | 20.00 ms |",
		"| `GET /health` / the bare server's, p90 at 64 connections | at most 1.5x | 1.40x | yes |",
		"| `GET /health` / the bare server's, p99 at 64 connections | at most 1.5x | 2.00x | no |",
		"| iris v1 `/predict` / the bare JSON echo, p99 at 64 connections | at most 1.5x | 1.40x | yes |",
		"| iris v1 `/predict` / the bare JSON echo, req/s at 64 connections | at least 0.75x | 0.70x | no |",
		"### The same cases under the default scheduler",
		"| inferd GET /health, shared scheduler | 64 | 12.0k | 1.00 ms | 20.00 ms | 60.00 ms |",
		"| `GET /health` / the bare server's, p99 at 64 connections | at most 1.5x | 3.00x | no |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
}
