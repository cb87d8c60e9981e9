package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// The tensors section of benchmarks.md lies between these markers, so that a run of
// `-section tensors` can rewrite it alone.
const (
	tensorsSectionStart = "<!-- bench-tensors -->"
	tensorsSectionEnd   = "<!-- /bench-tensors -->"
)

// tensorsSectionCases are the rows the tensors section shows, in its order: one flower
// by /predict and by /v2 infer beside the bare JSON echo, then the 1 MB tensor beside
// its floor. tensorsSectionWords are what `-section tensors` runs without -cases ("iris
// v1 /predict" brings the batch of 64 along: its name begins with that one's).
var (
	tensorsSectionCases = []string{Baseline, CaseIris, CaseIrisV2JSON, CaseFloor, CaseOIPBinary, CaseOIPJSON}
	tensorsSectionWords = []string{"iris v1 /predict", "iris v1 /v2", "1 mb fp32 as", "floor"}
)

// hasTensors says whether the run measured a case only the tensors section shows.
func (r *Report) hasTensors() bool {
	return slices.ContainsFunc(r.Results, func(x Result) bool {
		return (x.Case == CaseFloor || x.Case == CaseIrisV2JSON) && x.NA == ""
	})
}

// WriteTensors writes the tensors section, markers included: the rows issue 29 names,
// with the payload's MB/s, and its targets as ratios paired within rounds.
func (r *Report) WriteTensors(w io.Writer, header bool) {
	fmt.Fprintln(w, tensorsSectionStart)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Tensors at memory speed")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "One iris flower by `/predict` and as an Open Inference Protocol request to")
	fmt.Fprintln(w, "`/v2/models/iris/versions/v1/infer` (JSON, the ONNX input [1, 4] FP32), beside the")
	fmt.Fprintln(w, "baseline, net/http decoding JSON and encoding it back; then the 1 MB FP32 tensor")
	fmt.Fprintln(w, "through echo's `/v2` infer, as the binary tensor data extension both ways and as")
	fmt.Fprintln(w, "JSON, beside the floor: the baseline's process given the binary case's very bytes,")
	fmt.Fprintln(w, "which it reads whole (io.ReadAll) and writes back with its length, nothing parsed.")
	fmt.Fprintln(w, "MB/s is request payload, body bytes per second. The machine has two cores that")
	fmt.Fprintln(w, "other work shares while it runs, so the figures move with it; every case of a")
	fmt.Fprintln(w, "connection count runs right after the others, and each ratio is the median of its")
	fmt.Fprintln(w, "rounds' ratios, every one between measurements seconds apart.")
	fmt.Fprintln(w)
	if header {
		r.writeSectionRun(w)
	}
	fmt.Fprintln(w, "| case | connections | req/s | payload MB/s | p50 | p90 | p99 | server CPU/req | load generator CPU/req | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, name := range tensorsSectionCases {
		for _, x := range r.Results {
			if x.Case != name {
				continue
			}
			if x.NA != "" {
				fmt.Fprintf(w, "| %s | %d | n/a: %s | | | | | | | |\n", x.Case, x.Conns, x.NA)
				continue
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %d |\n", x.Case, x.Conns, rate(x.ReqPerSec()), mbPerSec(x.PayloadMBPerSec()),
				dur(x.P50), dur(x.P90), dur(x.P99), cpuDur(x.ServerCPU, x.ServerCPUPerReq()), cpuDur(x.ClientCPU, x.ClientCPUPerReq()), x.Errors)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Issue 29's targets in this run")
	fmt.Fprintln(w)
	writeTargetTable(w, r.tensorsTargets())
	r.writeTensorsCPU(w)
	fmt.Fprintln(w, tensorsSectionEnd)
}

// tensorsTargets are issue 29's, each a ratio of two rows of one run.
func (r *Report) tensorsTargets() []target {
	var ts []target
	ratio := func(what, want, a, b string, conns int, f func(Result) float64, ok func(float64) bool) {
		ts = append(ts, r.pairedTarget(what, want, a, b, conns, f, ok))
	}
	atLeast := func(v float64) func(float64) bool { return func(x float64) bool { return x >= v } }
	atMost := func(v float64) func(float64) bool { return func(x float64) bool { return x <= v } }
	ratio(fmt.Sprintf("iris, %d connections, req/s: /v2 infer JSON vs /predict", manyConns), ">= 0.95x",
		CaseIrisV2JSON, CaseIris, manyConns, reqPerSec, atLeast(0.95))
	ratio("1 MB FP32, 1 connection, server CPU/req: binary echo vs floor", "<= 1.20x",
		CaseOIPBinary, CaseFloor, 1, serverCPU, atMost(1.2))
	ratio("1 MB FP32, 1 connection, server CPU/req: JSON echo vs floor", "<= 10.00x",
		CaseOIPJSON, CaseFloor, 1, serverCPU, atMost(10))
	ratio(fmt.Sprintf("iris /predict, %d connections, req/s vs the bare JSON echo", manyConns), ">= 0.75x",
		CaseIris, Baseline, manyConns, reqPerSec, atLeast(0.75))
	return ts
}

// writeTensorsCPU gives the servers' CPU per request behind the two throughput targets:
// at many connections the cores are saturated, so a rate follows it.
func (r *Report) writeTensorsCPU(w io.Writer) {
	line := func(a, b, what string) {
		ratio := r.pairedRatio(a, b, manyConns, serverCPU)
		if ratio == "" {
			return
		}
		x, _ := r.find(a, manyConns)
		y, _ := r.find(b, manyConns)
		fmt.Fprintf(w, "- %s: %s of server CPU per request against %s (%s)\n", what,
			cpuDur(x.ServerCPU, x.ServerCPUPerReq()), cpuDur(y.ServerCPU, y.ServerCPUPerReq()), ratio)
	}
	if r.pairedRatio(CaseIrisV2JSON, CaseIris, manyConns, serverCPU) == "" && r.pairedRatio(CaseIris, Baseline, manyConns, serverCPU) == "" {
		return
	}
	fmt.Fprintf(w, "At %d connections the two cores are saturated, shared by the servers and the load\n", manyConns)
	fmt.Fprintln(w, "generator, so throughput follows the CPU each request costs:")
	fmt.Fprintln(w)
	line(CaseIrisV2JSON, CaseIris, "iris `/v2` infer JSON vs `/predict`")
	line(CaseIris, Baseline, "iris `/predict` vs the bare JSON echo")
	fmt.Fprintln(w)
}

// writeTargetTable writes targets as a table, then a blank line.
func writeTargetTable(w io.Writer, ts []target) {
	fmt.Fprintln(w, "| target | wanted | this run | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, t := range ts {
		met := "n/a"
		if t.ok != nil {
			met = map[bool]string{true: "yes", false: "no"}[*t.ok]
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", t.what, t.want, t.got, met)
	}
	fmt.Fprintln(w)
}

// writeSectionRun writes the run's machine, commit, command and rounds, under a
// section's introduction.
func (r *Report) writeSectionRun(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "- Machine: %s, %d cores; Go: %s\n", m.CPU, m.Cores, m.Go)
	fmt.Fprintf(w, "- Commit: %s; date: %s\n", m.Commit, m.Date.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "- Command: `%s`\n", m.Command)
	fmt.Fprintf(w, "- Rounds: %d\n", max(r.Rounds, 1))
	if r.Sched != "" {
		fmt.Fprintf(w, "- Scheduling: %s\n", r.Sched)
	}
	fmt.Fprintln(w)
}

// pairedTarget is a target met when ok holds of the paired ratio of rows a and b at
// conns (Report.paired); "n/a" when the run lacks either.
func (r *Report) pairedTarget(what, want, a, b string, conns int, f func(Result) float64, ok func(float64) bool) target {
	t := target{what: what, want: want, got: "n/a"}
	if x, have := r.paired(a, b, conns, f); have {
		met := ok(x)
		t.got, t.ok = fmt.Sprintf("%.2fx", x), &met
	}
	return t
}

// mbPerSec prints MB/s; empty where no payload was recorded.
func mbPerSec(v float64) string {
	switch {
	case v <= 0:
		return ""
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}
