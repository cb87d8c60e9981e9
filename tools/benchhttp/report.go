package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Baseline is the case every other is compared with at the same connection count.
const Baseline = "baseline: net/http JSON echo"

// Machine describes where and how a run was made, for the report's header.
type Machine struct {
	CPU     string
	Cores   int
	Go      string
	Commit  string
	Date    time.Time
	Command string
}

// Memory is inferd's resident set at three moments of the echo run.
type Memory struct {
	IdleKB, FirstKB, TotalKB int64
	First, Total             int // echo requests answered when FirstKB and TotalKB were read
	Cause                    string
}

// Growth is the change of RSS from the first reading after traffic to the last, in
// percent.
func (m Memory) Growth() float64 {
	if m.FirstKB == 0 {
		return 0
	}
	return 100 * float64(m.TotalKB-m.FirstKB) / float64(m.FirstKB)
}

// Report is everything one run measured.
type Report struct {
	Machine Machine
	// Results are the rows, each the round of median throughput of its case and
	// connection count.
	Results []Result
	// Runs, when set, holds every round of each row of Results, in the same order, so
	// that a ratio between two rows can be taken within each round (paired) rather
	// than between two median rounds, which may lie minutes apart.
	Runs [][]Result
	// Rounds is how many times each row was measured; it shows the median round.
	Rounds int
	Memory *Memory
	// PickupP50 is queue mode's idle pickup: submit to started, one job at a time.
	PickupP50 time.Duration
	PickupN   int
	PickupNA  string
	// XGBoost and XGBoostOne are XGBoost's own predict on the XGBoost cases' rows,
	// with its default threads and with one.
	XGBoost, XGBoostOne Library
	// Reloads is the reload soak's RSS; nil when it did not run.
	Reloads *Reloads
	// Sched says how the measurements were scheduled (schedIsolated, schedShared);
	// "": not said.
	Sched string
}

func (r *Report) find(name string, conns int) (Result, bool) {
	i := r.index(name, conns)
	if i < 0 {
		return Result{}, false
	}
	return r.Results[i], true
}

// index is the place in Results of a measured row, or -1.
func (r *Report) index(name string, conns int) int {
	return slices.IndexFunc(r.Results, func(x Result) bool { return x.Case == name && x.Conns == conns && x.NA == "" })
}

// rounds returns every round of a measured row: Runs' when it has them, else the row
// alone, as one round.
func (r *Report) rounds(name string, conns int) []Result {
	i := r.index(name, conns)
	switch {
	case i < 0:
		return nil
	case len(r.Runs) == len(r.Results) && len(r.Runs[i]) > 0:
		return r.Runs[i]
	}
	return r.Results[i : i+1]
}

// paired is the median over rounds of f(a)/f(b), a and b the rows of cases a and b at
// conns measured in the same round, seconds apart: the machine's speed, which drifts
// by a fifth over a run, moves both alike. ok is false unless some round has both
// figures (f returns 0 for one not measured).
func (r *Report) paired(a, b string, conns int, f func(Result) float64) (x float64, ok bool) {
	ra, rb := r.rounds(a, conns), r.rounds(b, conns)
	var ratios []float64
	for i := range min(len(ra), len(rb)) {
		if fa, fb := f(ra[i]), f(rb[i]); fa > 0 && fb > 0 {
			ratios = append(ratios, fa/fb)
		}
	}
	if len(ratios) == 0 {
		return 0, false
	}
	slices.Sort(ratios)
	n := len(ratios)
	if n%2 == 1 {
		return ratios[n/2], true
	}
	return (ratios[n/2-1] + ratios[n/2]) / 2, true
}

// The figures paired compares.
func reqPerSec(x Result) float64   { return x.ReqPerSec() }
func itemsPerSec(x Result) float64 { return x.ItemsPerSec() }
func p50(x Result) float64         { return float64(x.P50) }

// serverCPU is the servers' CPU time per request, or 0 where it was not measured.
func serverCPU(x Result) float64 {
	if x.ServerCPU <= 0 {
		return 0
	}
	return float64(x.ServerCPUPerReq())
}

// clientCPU is the load generator's CPU time per request, or 0 where not measured.
func clientCPU(x Result) float64 {
	if x.ClientCPU <= 0 {
		return 0
	}
	return float64(x.ClientCPUPerReq())
}

// pairedRatio prints paired's ratio, or "" without one.
func (r *Report) pairedRatio(a, b string, conns int, f func(Result) float64) string {
	x, ok := r.paired(a, b, conns, f)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%.2fx", x)
}

// WriteTable writes the results as a Markdown table; ratios compare with the baseline
// at the same connection count.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintln(w, "| case | connections | req/s | items/s | p50 | p90 | p99 | req/s vs baseline | p50 vs baseline | server CPU/req | vs baseline | load generator CPU/req | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, x := range r.Results {
		if x.NA != "" {
			fmt.Fprintf(w, "| %s | %d | n/a: %s | | | | | | | | | | |\n", x.Case, x.Conns, x.NA)
			continue
		}
		thr, lat, cpu := "", "", ""
		if x.Case != Baseline {
			thr = r.pairedRatio(x.Case, Baseline, x.Conns, reqPerSec)
			lat = r.pairedRatio(x.Case, Baseline, x.Conns, p50)
			cpu = r.pairedRatio(x.Case, Baseline, x.Conns, serverCPU)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
			x.Case, x.Conns, rate(x.ReqPerSec()), rate(x.ItemsPerSec()), dur(x.P50), dur(x.P90), dur(x.P99), thr, lat,
			cpuDur(x.ServerCPU, x.ServerCPUPerReq()), cpu, cpuDur(x.ClientCPU, x.ClientCPUPerReq()), x.Errors)
	}
	// A row with errors says what the first one was: a count alone cannot tell a
	// server's refusal from the load generator's own limit.
	first := true
	for _, x := range r.Results {
		if x.Errors == 0 || x.FirstError == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, "- %s, %d connections: %d errors, the first: %s\n", x.Case, x.Conns, x.Errors, strings.Join(strings.Fields(x.FirstError), " "))
	}
}

// WriteMarkdown writes docs/benchmarks.md: header, table, memory, and the issue's
// targets next to what this run measured.
func (r *Report) WriteMarkdown(w io.Writer) {
	m := r.Machine
	fmt.Fprintln(w, "# Benchmarks")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Written by `make bench-http` (tools/benchhttp); rerun it to refresh this page and")
	fmt.Fprintln(w, "[benchmarks.svg](benchmarks.svg). Every case is closed-loop: each keep-alive HTTP/1.1")
	fmt.Fprintln(w, "connection sends its next request when the previous one is answered. The load")
	fmt.Fprintln(w, "generator runs on the same machine and takes its share of the CPU, for inferd and")
	fmt.Fprintln(w, "the baseline alike: compare ratios within one run, not figures across machines.")
	fmt.Fprintln(w, "It writes each request's bytes on its connection and reads the answer with")
	fmt.Fprintln(w, "http.ReadResponse, one goroutine per connection, as lean as wrk rather than")
	fmt.Fprintln(w, "net/http's client, so that it leaves the servers most of the machine. The CPU")
	fmt.Fprintln(w, "columns are read from /proc while a row is measured: the server processes' CPU")
	fmt.Fprintln(w, "time per request (for queue mode: inferd, both workers and redis-server), which")
	fmt.Fprintln(w, "does not depend on the load generator's share, and the load generator's own.")
	fmt.Fprintln(w, "Each connection count is a round of every case, the baseline first, and the")
	fmt.Fprintln(w, "whole is repeated: each row is its round of median throughput, and each ratio")
	fmt.Fprintln(w, "the median of its rounds' ratios, every one between measurements of one round,")
	fmt.Fprintln(w, "seconds apart, on a machine whose speed drifts. Where the harness may, each")
	fmt.Fprintln(w, "measurement runs its load generator and servers under SCHED_RR (`-isolate`, the")
	fmt.Fprintln(w, "default): on two cores shared with other work, the default scheduler's slices for")
	fmt.Fprintln(w, "other processes otherwise set the tails, a bare net/http server's threefold.")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- Machine: %s, %d cores\n", m.CPU, m.Cores)
	fmt.Fprintf(w, "- Go: %s\n", m.Go)
	fmt.Fprintf(w, "- Commit: %s\n", m.Commit)
	fmt.Fprintf(w, "- Date: %s\n", m.Date.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "- Command: `%s`\n", m.Command)
	if r.Sched != "" {
		fmt.Fprintf(w, "- Scheduling: %s\n", r.Sched)
	}
	if r.Rounds > 1 {
		fmt.Fprintf(w, "- Rounds: %d (each row is the round of median throughput; each ratio the median of the rounds' ratios)\n", r.Rounds)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Throughput and latency")
	fmt.Fprintln(w)
	r.WriteTable(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Async cases count a request as one job from submit until a poll sees it succeeded")
	fmt.Fprintln(w, "(req/s is jobs/s); each job is submitted, then long-polled with GET /jobs/{id}?wait=10,")
	fmt.Fprintln(w, "which the server answers as the job finishes: one poll per job, no polling interval.")
	fmt.Fprintln(w)
	r.writeQueuePickup(w)
	r.writeMemory(w)
	r.writeTargets(w)
	fmt.Fprintln(w, "![throughput against p99 latency](benchmarks.svg)")
	if r.hasGRPC() {
		fmt.Fprintln(w)
		r.WriteGRPC(w, false)
	}
	if r.hasTensors() {
		fmt.Fprintln(w)
		r.WriteTensors(w, false)
	}
	if r.hasXGBoost() {
		fmt.Fprintln(w)
		r.WriteXGBoost(w, false)
	}
	if r.hasGraphs() {
		fmt.Fprintln(w)
		r.WriteGraphs(w, false)
	}
	if r.hasTail() {
		fmt.Fprintln(w)
		r.WriteTail(w, false)
	}
	if r.Reloads != nil {
		fmt.Fprintln(w)
		r.WriteReloads(w, false)
	}
}

func (r *Report) writeQueuePickup(w io.Writer) {
	fmt.Fprintln(w, "## Queue mode: idle pickup")
	fmt.Fprintln(w)
	if r.PickupNA != "" {
		fmt.Fprintf(w, "n/a: %s\n\n", r.PickupNA)
		return
	}
	fmt.Fprintf(w, "One job at a time to two idle workers, %d jobs: p50 from `created_at` to\n", r.PickupN)
	fmt.Fprintf(w, "`started_at` of the job record is **%s**.\n\n", dur(r.PickupP50))
}

func (r *Report) writeMemory(w io.Writer) {
	fmt.Fprintln(w, "## Memory")
	fmt.Fprintln(w)
	if r.Memory == nil {
		fmt.Fprintln(w, "n/a: not measured in this run")
		fmt.Fprintln(w)
		return
	}
	mem := r.Memory
	fmt.Fprintln(w, "RSS of the inferd process (VmRSS in /proc/<pid>/status), echo `/predict` at 16 connections:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| moment | RSS |")
	fmt.Fprintln(w, "|---|---:|")
	fmt.Fprintf(w, "| idle, after start | %s |\n", mib(mem.IdleKB))
	fmt.Fprintf(w, "| after %s echo requests | %s |\n", count(mem.First), mib(mem.FirstKB))
	fmt.Fprintf(w, "| after %s echo requests | %s |\n", count(mem.Total), mib(mem.TotalKB))
	fmt.Fprintf(w, "| growth from %s to %s | %+.1f%% |\n", count(mem.First), count(mem.Total), mem.Growth())
	fmt.Fprintln(w)
	if mem.Cause != "" {
		fmt.Fprintln(w, mem.Cause)
		fmt.Fprintln(w)
	}
}

// target is one line of the performance targets (see
// docs/design.md#performance-targets).
type target struct {
	what, want, got string
	ok              *bool
}

// manyConns is the connection count of the targets asked at many connections, where
// two cores are saturated.
const manyConns = 64

func (r *Report) targets() []target {
	var ts []target
	check := func(what, want string, f func() (string, bool, bool)) {
		got, ok, have := f()
		t := target{what: what, want: want, got: "n/a"}
		if have {
			t.got, t.ok = got, &ok
		}
		ts = append(ts, t)
	}
	// compare checks a paired ratio of two rows against its bound.
	compare := func(a, b string, conns int, f func(Result) float64, ok func(float64) bool) func() (string, bool, bool) {
		return func() (string, bool, bool) {
			x, have := r.paired(a, b, conns, f)
			return fmt.Sprintf("%.2fx", x), have && ok(x), have
		}
	}
	atLeast := func(v float64) func(float64) bool { return func(x float64) bool { return x >= v } }
	atMost := func(v float64) func(float64) bool { return func(x float64) bool { return x <= v } }
	check(fmt.Sprintf("echo /predict, %d connections, req/s vs baseline", manyConns), ">= 0.85x",
		compare(CaseEcho, Baseline, manyConns, reqPerSec, atLeast(0.85)))
	check("echo /predict, 1 connection, p50 vs baseline", "<= 1.2x",
		compare(CaseEcho, Baseline, 1, p50, atMost(1.2)))
	check(fmt.Sprintf("digits, %d connections, batching on vs off, items/s", manyConns), ">= 3x",
		compare(CaseDigitsOn, CaseDigitsOff, manyConns, itemsPerSec, atLeast(3)))
	check("digits, 1 connection, p50 batching on vs off", "<= 1.1x",
		compare(CaseDigitsOn, CaseDigitsOff, 1, p50, atMost(1.1)))
	check("in-process async, best jobs/s", ">= 5000", func() (string, bool, bool) {
		return r.best(CaseAsync, 5000)
	})
	check("queue mode, two workers, best jobs/s", ">= 2000", func() (string, bool, bool) {
		return r.best(CaseQueue, 2000)
	})
	check("queue mode, idle pickup p50", "<= 25 ms", func() (string, bool, bool) {
		if r.PickupNA != "" || r.PickupN == 0 {
			return "", false, false
		}
		return dur(r.PickupP50), r.PickupP50 <= 25*time.Millisecond, true
	})
	check("RSS growth from the first to the last echo count", "<= 10%", func() (string, bool, bool) {
		if r.Memory == nil {
			return "", false, false
		}
		g := r.Memory.Growth()
		return fmt.Sprintf("%+.1f%%", g), g <= 10, true
	})
	return ts
}

func (r *Report) best(name string, want float64) (string, bool, bool) {
	var top float64
	for _, x := range r.Results {
		if x.Case == name && x.NA == "" {
			top = max(top, x.ReqPerSec())
		}
	}
	if top == 0 {
		return "", false, false
	}
	return rate(top), top >= want, true
}

func (r *Report) writeTargets(w io.Writer) {
	fmt.Fprintln(w, "## Issue 8's targets in this run")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | wanted | this run | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, t := range r.targets() {
		met := "n/a"
		if t.ok != nil {
			met = map[bool]string{true: "yes", false: "no"}[*t.ok]
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", t.what, t.want, t.got, met)
	}
	fmt.Fprintln(w)
	r.writeCPUBounds(w)
}

// writeCPUBounds says what the servers' CPU per request implies for the two throughput
// targets at manyConns, where the machine is saturated: there a rate ratio can only
// move as far as the CPU per request allows.
func (r *Report) writeCPUBounds(w io.Writer) {
	// A paired ratio exists only where both rows were measured, with their CPU.
	on, _ := r.find(CaseDigitsOn, manyConns)
	off, _ := r.find(CaseDigitsOff, manyConns)
	if cheaper := r.pairedRatio(CaseDigitsOff, CaseDigitsOn, manyConns, serverCPU); cheaper != "" {
		fmt.Fprintf(w, "At %d connections the machine is saturated, so a ratio of throughputs follows the\n", manyConns)
		fmt.Fprintf(w, "CPU each request costs. Digits costs the server %s per request with batching on and\n", cpuDur(on.ServerCPU, on.ServerCPUPerReq()))
		fmt.Fprintf(w, "%s with it off: batching makes a request %s cheaper, which is about as far as it\n", cpuDur(off.ServerCPU, off.ServerCPUPerReq()), cheaper)
		fmt.Fprintln(w, "can raise throughput while the runtime, the HTTP path and the load generator share")
		fmt.Fprintln(w, "these cores.")
	}
	echo, _ := r.find(CaseEcho, manyConns)
	base, _ := r.find(Baseline, manyConns)
	if costlier := r.pairedRatio(CaseEcho, Baseline, manyConns, serverCPU); costlier != "" {
		fmt.Fprintf(w, "Echo costs inferd %s per request against the baseline's %s (%s).\n",
			cpuDur(echo.ServerCPU, echo.ServerCPUPerReq()), cpuDur(base.ServerCPU, base.ServerCPUPerReq()), costlier)
	}
	fmt.Fprintln(w)
}

// rate prints a per-second figure with three significant digits.
func rate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.2fk", v/1e3)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// dur prints a latency in the unit that keeps it readable.
func dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0f us", float64(d)/float64(time.Microsecond))
	}
}

func mib(kb int64) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }

func count(n int) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dk", n/1e3)
	default:
		return fmt.Sprint(n)
	}
}

// cpuDur prints a CPU time per request; empty when none was measured (total is 0).
// Below 100 us it keeps a decimal: that is where inferd and the baseline differ.
func cpuDur(total, per time.Duration) string {
	switch {
	case total <= 0:
		return ""
	case per < 100*time.Microsecond:
		return fmt.Sprintf("%.1f us", float64(per)/float64(time.Microsecond))
	default:
		return dur(per)
	}
}
