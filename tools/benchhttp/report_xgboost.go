package main

import (
	"fmt"
	"io"
	"slices"
)

// The XGBoost section of benchmarks.md lies between these markers, so that a run of
// `-section xgboost` can rewrite it alone.
const (
	xgboostSectionStart = "<!-- bench-xgboost -->"
	xgboostSectionEnd   = "<!-- /bench-xgboost -->"
)

// xgboostSectionCases are the rows the section shows; xgboostSectionWords what
// `-section xgboost` runs without -cases.
var (
	xgboostSectionCases = []string{CaseIris, CaseWine, CaseWineV2One, CaseWineV2Batch}
	xgboostSectionWords = []string{"iris v1 /predict", "wine"}
)

func (r *Report) hasXGBoost() bool {
	return slices.ContainsFunc(r.Results, func(x Result) bool { return x.Case == CaseWineV2Batch && x.NA == "" })
}

// WriteXGBoost writes the XGBoost section, markers included: the wine rows beside
// iris's /predict, XGBoost's own predict on the same rows, and issue 38's targets.
func (r *Report) WriteXGBoost(w io.Writer, header bool) {
	fmt.Fprintln(w, xgboostSectionStart)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## XGBoost, served natively")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "models/wine/v1, an XGBoost `model.json` (multi:softprob, 30 rounds of 3 classes,")
	fmt.Fprintln(w, "depth 3) served by the xgboost backend: one row by `/predict` (features by name) beside")
	fmt.Fprintln(w, "iris's `/predict`, and 1 and 1,024 rows by `/v2` infer with the binary tensor data")
	fmt.Fprintln(w, "extension both ways; then XGBoost's own C++ predict on the same model and the same")
	fmt.Fprintln(w, "1,024 rows (tools/bench-xgboost.py, Debian's python3-xgboost), the p50 of its calls:")
	fmt.Fprintln(w, "`inplace_predict` on a numpy array, and a `DMatrix` built and predicted, with its")
	fmt.Fprintln(w, "default threads and with one. inferd's figures include HTTP; the library's do not.")
	fmt.Fprintln(w)
	if header {
		r.writeSectionRun(w)
	}
	fmt.Fprintln(w, "| case | connections | req/s | rows/s | p50 | p90 | p99 | server CPU/req | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, name := range xgboostSectionCases {
		for _, x := range r.Results {
			if x.Case != name {
				continue
			}
			if x.NA != "" {
				fmt.Fprintf(w, "| %s | %d | n/a: %s | | | | | | |\n", x.Case, x.Conns, x.NA)
				continue
			}
			rows := 1.0
			if name == CaseWineV2Batch {
				rows = wineBatchRows
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %d |\n", x.Case, x.Conns, rate(x.ReqPerSec()), rate(x.ReqPerSec()*rows),
				dur(x.P50), dur(x.P90), dur(x.P99), cpuDur(x.ServerCPU, x.ServerCPUPerReq()), x.Errors)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| XGBoost's own predict | threads | 1 row | 1,024 rows |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, l := range []Library{r.XGBoost, r.XGBoostOne} {
		if l.NA != "" {
			fmt.Fprintf(w, "| n/a: %s | | | |\n", l.NA)
			continue
		}
		fmt.Fprintf(w, "| XGBoost %s `inplace_predict` | %d | %s | %s |\n", l.Version, l.Threads, dur(l.Inplace1), dur(l.InplaceN))
		fmt.Fprintf(w, "| XGBoost %s `DMatrix` + `predict` | %d | %s | %s |\n", l.Version, l.Threads, dur(l.DMatrix1), dur(l.DMatrixN))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Issue 38's targets in this run")
	fmt.Fprintln(w)
	writeTargetTable(w, r.xgboostTargets())
	fmt.Fprintln(w, xgboostSectionEnd)
}

// xgboostTargets: the 1,024-row /v2 request's p50 at one connection against the
// library's fastest 1,024-row predict (inplace_predict, either thread count), and
// wine's /predict p50 against iris's, paired within rounds.
func (r *Report) xgboostTargets() []target {
	t := target{what: "1,024-row `/v2` binary request p50 (1 connection) / XGBoost's fastest 1,024-row `inplace_predict` p50", want: "at most 2x", got: "n/a"}
	x, have := r.find(CaseWineV2Batch, 1)
	best := r.XGBoost.InplaceN
	if r.XGBoostOne.NA == "" && (r.XGBoost.NA != "" || r.XGBoostOne.InplaceN < best) {
		best = r.XGBoostOne.InplaceN
	}
	if have && best > 0 {
		ratio := float64(x.P50) / float64(best)
		met := ratio <= 2
		t.got, t.ok = fmt.Sprintf("%.2fx (%s / %s)", ratio, dur(x.P50), dur(best)), &met
	}
	p50 := func(x Result) float64 { return float64(x.P50) }
	return []target{t, r.pairedTarget("wine `/predict` p50 / iris's (1 connection)", "at most 1.2x", CaseWine, CaseIris, 1, p50, func(v float64) bool { return v <= 1.2 })}
}
