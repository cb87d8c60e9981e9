package main

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"
	"time"
)

// sample is a small run: the baseline and echo at two connection counts, a model that
// is not served, and a batch case.
func sample() *Report {
	r := func(name string, conns, reqs, items int, p50, p99 time.Duration) Result {
		return Result{Case: name, Conns: conns, Requests: reqs, Items: items, Elapsed: time.Second, P50: p50, P90: (p50 + p99) / 2, P99: p99}
	}
	return &Report{
		Machine: Machine{CPU: "Test CPU", Cores: 2, Go: "go1.x", Commit: "abc123", Date: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Command: "make bench-http"},
		Results: []Result{
			r(Baseline, 1, 10000, 10000, 50*time.Microsecond, 200*time.Microsecond),
			withCPU(r(Baseline, 64, 40000, 40000, 1500*time.Microsecond, 4*time.Millisecond), 700*time.Millisecond, 400*time.Millisecond),
			r(CaseEcho, 1, 8000, 8000, 60*time.Microsecond, 300*time.Microsecond),
			withCPU(r(CaseEcho, 64, 36000, 36000, 1700*time.Microsecond, 5*time.Millisecond), 792*time.Millisecond, 360*time.Millisecond),
			{Case: CaseDigitsOn, Conns: 1, NA: "model digits not served"},
			r(CaseBatch, 1, 1000, 64000, time.Millisecond, 3*time.Millisecond),
		},
		Memory:    &Memory{IdleKB: 20480, FirstKB: 30720, TotalKB: 32768, First: 10000, Total: 1000000},
		PickupN:   20,
		PickupP50: 12 * time.Millisecond,
	}
}

func withCPU(r Result, server, client time.Duration) Result {
	r.ServerCPU, r.ClientCPU = server, client
	return r
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	sample().WriteTable(&b)
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	tests := []struct {
		name string
		row  int
		want string
	}{
		{"header", 0, "| case | connections | req/s | items/s | p50 | p90 | p99 | req/s vs baseline | p50 vs baseline | server CPU/req | vs baseline | load generator CPU/req | errors |"},
		{"baseline has no ratio to itself", 2, "| baseline: net/http JSON echo | 1 | 10.0k | 10.0k | 50 us | 125 us | 200 us |  |  |  |  |  | 0 |"},
		{"baseline's CPU per request", 3, "| baseline: net/http JSON echo | 64 | 40.0k | 40.0k | 1.50 ms | 2.75 ms | 4.00 ms |  |  | 17.5 us |  | 10.0 us | 0 |"},
		{"echo at 1 connection against the baseline at 1", 4, "| echo /predict | 1 | 8.00k | 8.00k | 60 us | 180 us | 300 us | 0.80x | 1.20x |  |  |  | 0 |"},
		{"echo at 64 connections against the baseline at 64, CPU too", 5, "| echo /predict | 64 | 36.0k | 36.0k | 1.70 ms | 3.35 ms | 5.00 ms | 0.90x | 1.13x | 22.0 us | 1.26x | 10.0 us | 0 |"},
		{"a model not served is a row, not a failure", 6, "| digits /predict, batching on | 1 | n/a: model digits not served | | | | | | | | | | |"},
		{"a batch counts its items", 7, "| iris v1 /predict/batch of 64 | 1 | 1.00k | 64.0k | 1.00 ms | 2.00 ms | 3.00 ms | 0.10x | 20.00x |  |  |  | 0 |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(rows) <= tt.row {
				t.Fatalf("only %d rows:\n%s", len(rows), b.String())
			}
			if rows[tt.row] != tt.want {
				t.Errorf("row %d\n got: %s\nwant: %s", tt.row, rows[tt.row], tt.want)
			}
		})
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	sample().WriteMarkdown(&b)
	md := b.String()
	for _, want := range []string{
		"- Machine: Test CPU, 2 cores",
		"- Commit: abc123",
		"- Date: 2026-11-23T12:00:00Z",
		"- Command: `make bench-http`",
		"| idle, after start | 20.0 MiB |",
		"| after 10k echo requests | 30.0 MiB |",
		"| after 1M echo requests | 32.0 MiB |",
		"| growth from 10k to 1M | +6.7% |",
		"| echo /predict, 64 connections, req/s vs baseline | >= 0.85x | 0.90x | yes |",
		"| echo /predict, 1 connection, p50 vs baseline | <= 1.2x | 1.20x | yes |",
		"| digits, 64 connections, batching on vs off, items/s | >= 3x | n/a | n/a |",
		"| queue mode, idle pickup p50 | <= 25 ms | 12.00 ms | yes |",
		"| RSS growth from the first to the last echo count | <= 10% | +6.7% | yes |",
		"Echo costs inferd 22.0 us per request against the baseline's 17.5 us (1.26x).",
		"![throughput against p99 latency](benchmarks.svg)",
	} {
		t.Run(want, func(t *testing.T) {
			if !strings.Contains(md, want) {
				t.Errorf("benchmarks.md lacks %q:\n%s", want, md)
			}
		})
	}
}

func TestWriteSVG(t *testing.T) {
	tests := []struct {
		name       string
		results    []Result
		wantSeries []string
		wantPoints []int
	}{
		{"one series per case, n/a rows left out", sample().Results, []string{Baseline, CaseEcho, CaseBatch}, []int{2, 2, 1}},
		{"no results is still a valid picture", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteSVG(&b, tt.results, "a <title> & more")
			var doc struct {
				XMLName xml.Name `xml:"svg"`
				Groups  []struct {
					Class    string `xml:"class,attr"`
					Title    string `xml:"title"`
					Polyline struct {
						Points string `xml:"points,attr"`
					} `xml:"polyline"`
					Circles []struct{} `xml:"circle"`
				} `xml:"g"`
			}
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("not well-formed XML: %v\n%s", err, b.String())
			}
			if len(doc.Groups) != len(tt.wantSeries) {
				t.Fatalf("%d series, want %d", len(doc.Groups), len(tt.wantSeries))
			}
			for i, g := range doc.Groups {
				if g.Title != tt.wantSeries[i] {
					t.Errorf("series %d is %q, want %q", i, g.Title, tt.wantSeries[i])
				}
				if n := len(strings.Fields(g.Polyline.Points)); n != tt.wantPoints[i] || len(g.Circles) != n {
					t.Errorf("series %q: %d polyline points and %d circles, want %d", g.Title, n, len(g.Circles), tt.wantPoints[i])
				}
			}
		})
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"rate below a thousand", tickRate(100), "100"},
		{"rate in thousands", tickRate(10000), "10k"},
		{"latency in microseconds", tickMs(0.1), "100 us"},
		{"latency in milliseconds", tickMs(10), "10 ms"},
		{"latency in seconds", tickMs(1000), "1 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// TestCPUBounds: the digits sentence compares server CPU per request off and on at the
// most connections, and is left out where CPU was not measured.
func TestCPUBounds(t *testing.T) {
	row := func(name string, conns, reqs int, cpu time.Duration) Result {
		return Result{Case: name, Conns: conns, Requests: reqs, Items: reqs, Elapsed: time.Second, ServerCPU: cpu}
	}
	tests := []struct {
		name    string
		results []Result
		want    string // "" : no digits sentence
	}{
		{"on and off measured", []Result{
			row(CaseDigitsOn, 16, 1000, 150*time.Millisecond),
			row(CaseDigitsOn, 64, 10000, 1230*time.Millisecond),
			row(CaseDigitsOff, 64, 5000, 1410*time.Millisecond),
		}, "Digits costs the server 123 us per request with batching on and\n282 us with it off: batching makes a request 2.29x cheaper"},
		{"no CPU figures", []Result{row(CaseDigitsOn, 64, 10000, 0), row(CaseDigitsOff, 64, 5000, 0)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			(&Report{Results: tt.results}).writeCPUBounds(&b)
			got := b.String()
			if tt.want == "" && strings.Contains(got, "Digits") || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("got:\n%s\nwant it to hold:\n%s", got, tt.want)
			}
		})
	}
}

// TestPairedRatios: a ratio to another row is the median of the rounds' ratios, each
// between measurements of one round, not the ratio of the two median rounds; a row
// stays its round of median throughput.
func TestPairedRatios(t *testing.T) {
	round := func(name string, reqs int, p50 time.Duration) Result {
		return Result{Case: name, Conns: 64, Requests: reqs, Items: reqs, Elapsed: time.Second, P50: p50,
			ServerCPU: time.Duration(reqs) * 20 * time.Microsecond}
	}
	// The machine is fast, then slow, then in between; echo runs at 0.90x, 0.60x and
	// 0.95x the baseline of its round. The median rounds are the baseline's first and
	// echo's second, whose ratio (0.75x) no round measured.
	base := []Result{round(Baseline, 40000, time.Millisecond), round(Baseline, 50000, 800*time.Microsecond), round(Baseline, 30000, 1300*time.Microsecond)}
	echo := []Result{round(CaseEcho, 36000, 1100*time.Microsecond), round(CaseEcho, 30000, 1200*time.Microsecond), round(CaseEcho, 28500, 1400*time.Microsecond)}
	rep := &Report{Results: []Result{Median(base), Median(echo)}, Runs: [][]Result{base, echo}}

	var b bytes.Buffer
	rep.WriteTable(&b)
	if want := "| echo /predict | 64 | 30.0k | 30.0k | 1.20 ms | 0 us | 0 us | 0.90x | 1.10x | 20.0 us | 1.00x |  | 0 |"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the row:\n%s", b.String(), want)
	}
	tests := []struct {
		name string
		f    func(Result) float64
		want float64
	}{
		{"throughput", reqPerSec, 0.90},
		{"p50", p50, 1.10},    // 1.1, 1.5, 1.08
		{"CPU", serverCPU, 1}, // 20 us a request throughout
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := rep.paired(CaseEcho, Baseline, 64, tt.f)
			if !ok || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("paired = %v, %v; want %v", got, ok, tt.want)
			}
		})
	}
	t.Run("an even number of rounds: the mean of the middle two", func(t *testing.T) {
		rep := &Report{Results: []Result{Median(base[:2]), Median(echo[:2])}, Runs: [][]Result{base[:2], echo[:2]}}
		if got, _ := rep.paired(CaseEcho, Baseline, 64, reqPerSec); math.Abs(got-0.75) > 1e-9 {
			t.Errorf("paired = %v, want 0.75", got)
		}
	})
	t.Run("a row not measured has no ratio", func(t *testing.T) {
		rep := &Report{Results: []Result{Median(base), {Case: CaseEcho, Conns: 64, NA: "not asked for"}}}
		if got, ok := rep.paired(CaseEcho, Baseline, 64, reqPerSec); ok {
			t.Errorf("paired = %v, true; want no ratio", got)
		}
	})
	t.Run("the target line", func(t *testing.T) {
		var b bytes.Buffer
		rep.writeTargets(&b)
		if want := "| echo /predict, 64 connections, req/s vs baseline | >= 0.85x | 0.90x | yes |"; !strings.Contains(b.String(), want) {
			t.Errorf("targets:\n%s\nwant the line:\n%s", b.String(), want)
		}
	})
}
