package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tensorsSample is a run of the tensors section's cases over two rounds: iris /v2 infer
// at 64 connections goes at 25k and 30k req/s against /predict's 26k and 30k, /predict
// at 0.65x and 0.75x the baseline's 40k, and the 1 MB tensor costs the server 1.6x the
// floor's CPU as binary and 25x as JSON.
func tensorsSample() *Report {
	row := func(name string, conns, reqs, payload int, server time.Duration) Result {
		return Result{Case: name, Conns: conns, Requests: reqs, Items: reqs, Elapsed: time.Second, Payload: payload,
			P50: time.Millisecond, P90: 3 * time.Millisecond / 2, P99: 2 * time.Millisecond, ServerCPU: time.Duration(reqs) * server, ClientCPU: time.Duration(reqs) * 10 * time.Microsecond}
	}
	us := time.Microsecond
	runs := [][]Result{
		{row(Baseline, 64, 40000, 60, 22*us), row(Baseline, 64, 40000, 60, 22*us)},
		{row(CaseIris, 64, 26000, 58, 39*us), row(CaseIris, 64, 30000, 58, 39*us)},
		{row(CaseIrisV2JSON, 64, 25000, 84, 45*us), row(CaseIrisV2JSON, 64, 30000, 84, 45*us)},
		{row(CaseFloor, 1, 400, 1_000_000, 2200*us), row(CaseFloor, 1, 400, 1_000_000, 2200*us)},
		{row(CaseOIPBinary, 1, 300, 1_000_000, 3520*us), row(CaseOIPBinary, 1, 300, 1_000_000, 3520*us)},
		{row(CaseOIPJSON, 1, 20, 2_600_000, 55000*us), row(CaseOIPJSON, 1, 20, 2_600_000, 55000*us)},
		{{Case: CaseOIPJSON, Conns: 64, NA: "not asked for"}},
	}
	rep := &Report{Rounds: 2, Runs: runs,
		Machine: Machine{CPU: "Test CPU", Cores: 2, Go: "go1.x", Commit: "abc123", Date: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), Command: "make bench-http"}}
	for _, rs := range runs {
		rep.Results = append(rep.Results, Median(rs))
	}
	return rep
}

func TestWriteTensors(t *testing.T) {
	var b bytes.Buffer
	tensorsSample().WriteTensors(&b, true)
	md := b.String()
	if !strings.HasPrefix(md, tensorsSectionStart+"\n") || !strings.HasSuffix(md, tensorsSectionEnd+"\n") {
		t.Errorf("the section is not between its markers:\n%s", md)
	}
	for _, want := range []string{
		"- Commit: abc123; date: 2026-11-27T12:00:00Z",
		"- Rounds: 2",
		// The round of median throughput (the lower of two): 26k req/s of 58 bytes.
		"| iris v1 /predict | 64 | 26.0k | 1.5 | 1.00 ms | 1.50 ms | 2.00 ms | 39.0 us | 10.0 us | 0 |\n| iris v1 /v2 infer, JSON | 64 |",
		"| floor: net/http 1 MB body read and written back | 1 | 400 | 400 | 1.00 ms | 1.50 ms | 2.00 ms | 2.20 ms | 10.0 us | 0 |\n| echo /v2 infer, 1 MB FP32 as binary | 1 | 300 | 300 |",
		"| echo /v2 infer, 1 MB FP32 as JSON | 1 | 20 | 52.0 |",
		"| echo /v2 infer, 1 MB FP32 as JSON | 64 | n/a: not asked for | | | | | | | |",
		"| iris, 64 connections, req/s: /v2 infer JSON vs /predict | >= 0.95x | 0.98x | yes |", // 0.96 and 1.00
		"| 1 MB FP32, 1 connection, server CPU/req: binary echo vs floor | <= 1.20x | 1.60x | no |",
		"| 1 MB FP32, 1 connection, server CPU/req: JSON echo vs floor | <= 10.00x | 25.00x | no |",
		"| iris /predict, 64 connections, req/s vs the bare JSON echo | >= 0.75x | 0.70x | no |", // 0.65 and 0.75
		"- iris `/v2` infer JSON vs `/predict`: 45.0 us of server CPU per request against 39.0 us (1.15x)",
		"- iris `/predict` vs the bare JSON echo: 39.0 us of server CPU per request against 22.0 us (1.77x)",
	} {
		t.Run(want, func(t *testing.T) {
			if !strings.Contains(md, want) {
				t.Errorf("the section lacks %q:\n%s", want, md)
			}
		})
	}
	t.Run("targets of cases not measured are n/a", func(t *testing.T) {
		var b bytes.Buffer
		(&Report{}).WriteTensors(&b, false)
		if got := strings.Count(b.String(), "| n/a | n/a |"); got != 4 {
			t.Errorf("%d targets n/a, want 4:\n%s", got, b.String())
		}
		if strings.Contains(b.String(), "- Commit:") || strings.Contains(b.String(), "saturated") {
			t.Errorf("an empty run has a header or a CPU note:\n%s", b.String())
		}
	})
	t.Run("the whole page holds the section when its cases were measured", func(t *testing.T) {
		var page bytes.Buffer
		tensorsSample().WriteMarkdown(&page)
		if !strings.Contains(page.String(), tensorsSectionStart) {
			t.Error("benchmarks.md of a run with the floor has no tensors section")
		}
		page.Reset()
		sample().WriteMarkdown(&page)
		if strings.Contains(page.String(), tensorsSectionStart) {
			t.Error("benchmarks.md of a run without the tensors cases has a tensors section")
		}
	})
}

// TestTensorsSectionWords: -section tensors runs the section's cases, and of the rest
// only the batch of 64, whose name begins with iris /predict's.
func TestTensorsSectionWords(t *testing.T) {
	cfg := Config{Cases: tensorsSectionWords}
	all := []string{Baseline, CaseEcho, CaseIris, CaseIrisV2JSON, CaseDigitsOn, CaseDigitsOff, CaseBatch, CaseAsync, CaseQueue,
		CaseOIPJSON, CaseOIPBinary, CaseFloor, CaseDigitsV2JSON, CaseDigitsV2Binary, CaseDigitsGRPCRaw, CaseDigitsGRPC, CaseOIPGRPCRaw, CaseOIPGRPC}
	for _, name := range all {
		t.Run(name, func(t *testing.T) {
			want := name == CaseBatch
			for _, c := range tensorsSectionCases {
				want = want || c == name
			}
			if got := cfg.wants(name); got != want {
				t.Errorf("wants = %v, want %v", got, want)
			}
		})
	}
}

// TestSpliceTensors: -section tensors replaces its section, or adds it before make
// bench-cluster's (after the gRPC section), and leaves the rest byte for byte.
func TestSpliceTensors(t *testing.T) {
	cluster := clusterSectionMarker + "\n\n## Redis Cluster\n"
	grpc := grpcSectionStart + "\ngrpc\n" + grpcSectionEnd + "\n"
	dir := t.TempDir()
	page := "# Benchmarks\n\ntable\n\n" + grpc + "\n" + cluster
	path := filepath.Join(dir, "benchmarks.md")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	var sec bytes.Buffer
	tensorsSample().WriteTensors(&sec, true)
	for round := range 2 { // added, then replaced in place
		if err := writeTensorsSection(tensorsSample(), dir); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if want := "# Benchmarks\n\ntable\n\n" + grpc + "\n" + sec.String() + "\n" + cluster; string(b) != want {
			t.Errorf("round %d: page\n%s\nwant\n%s", round, b, want)
		}
	}
	t.Run("one marker alone", func(t *testing.T) {
		_, err := spliceSection([]byte("# B\n"+tensorsSectionEnd+"\n"), sec.Bytes(), tensorsSectionStart, tensorsSectionEnd, "tensors")
		if err == nil || !strings.Contains(err.Error(), "one of the tensors section's markers") {
			t.Errorf("error %v", err)
		}
	})
}
