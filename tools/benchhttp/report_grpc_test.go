package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// grpcSample is a run of the gRPC section's cases over two rounds: gRPC raw digits at
// 64 connections goes at 1.10x and 0.96x REST JSON's rate in the two rounds, and the
// 1 MB tensor costs the server 2.0 and 2.2 ms raw over gRPC against 2.5 ms as REST
// binary.
func grpcSample() *Report {
	row := func(name string, conns, reqs int, server, client time.Duration) Result {
		return Result{Case: name, Conns: conns, Requests: reqs, Items: reqs, Elapsed: time.Second,
			P50: time.Millisecond, P90: 3 * time.Millisecond / 2, P99: 2 * time.Millisecond, ServerCPU: time.Duration(reqs) * server, ClientCPU: time.Duration(reqs) * client}
	}
	us := time.Microsecond
	runs := [][]Result{
		{row(CaseDigitsV2JSON, 64, 3000, 250*us, 30*us), row(CaseDigitsV2JSON, 64, 3000, 250*us, 30*us)},
		{row(CaseDigitsV2Binary, 64, 3200, 250*us, 20*us), row(CaseDigitsV2Binary, 64, 3200, 250*us, 20*us)},
		{row(CaseDigitsGRPCRaw, 64, 3300, 240*us, 80*us), row(CaseDigitsGRPCRaw, 64, 2880, 240*us, 80*us)},
		{row(CaseOIPBinary, 1, 400, 2500*us, 500*us), row(CaseOIPBinary, 1, 400, 2500*us, 500*us)},
		{row(CaseOIPGRPCRaw, 1, 300, 2000*us, 2000*us), row(CaseOIPGRPCRaw, 1, 300, 2200*us, 2000*us)},
		{{Case: CaseDigitsGRPC, Conns: 64, NA: "model digits not served"}},
	}
	rep := &Report{Rounds: 2, Runs: runs,
		Machine: Machine{CPU: "Test CPU", Cores: 2, Go: "go1.x", Commit: "abc123", Date: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), Command: "make bench-http"}}
	for _, rs := range runs {
		rep.Results = append(rep.Results, Median(rs))
	}
	return rep
}

func TestWriteGRPC(t *testing.T) {
	var b bytes.Buffer
	grpcSample().WriteGRPC(&b, true)
	md := b.String()
	if !strings.HasPrefix(md, grpcSectionStart+"\n") || !strings.HasSuffix(md, grpcSectionEnd+"\n") {
		t.Errorf("the section is not between its markers:\n%s", md)
	}
	for _, want := range []string{
		"- Commit: abc123; date: 2026-11-27T12:00:00Z",
		"- Rounds: 2",
		// Rows in the section's order, the digits routes before the 1 MB tensor.
		"| digits /v2 infer, REST JSON | 64 | 3.00k | 1.00 ms | 1.50 ms | 2.00 ms | 250 us | 30.0 us | 0 |\n| digits /v2 infer, REST binary | 64 |",
		"| digits ModelInfer, gRPC typed | 64 | n/a: model digits not served | | | | | | |\n| echo /v2 infer, 1 MB FP32 as binary | 1 |",
		"| 1 MB FP32 echo, 1 connection, server CPU/req: gRPC raw vs REST binary | <= 1.00x | 0.84x | yes |",
		"| digits, 64 connections, req/s: gRPC raw vs REST /v2 JSON | >= 1.00x | 1.03x | yes |",  // 1.10 and 0.96: their mean
		"| digits, 64 connections, req/s: gRPC raw vs REST /v2 binary | >= 1.00x | 0.97x | no |", // 1.03 and 0.90
		"| digits, 64 connections, req/s: gRPC typed vs REST /v2 JSON | >= 1.00x | n/a | n/a |",  // not measured
		"costs inferd 240 us per request against 250 us over REST /v2 JSON (0.96x), and the\nload generator 80.0 us against 30.0 us (2.67x):\nthe harness's HTTP/2 gRPC client",
	} {
		t.Run(want, func(t *testing.T) {
			if !strings.Contains(md, want) {
				t.Errorf("the section lacks %q:\n%s", want, md)
			}
		})
	}
	t.Run("the whole page holds the section when gRPC was measured", func(t *testing.T) {
		var page bytes.Buffer
		grpcSample().WriteMarkdown(&page)
		if !strings.Contains(page.String(), grpcSectionStart) {
			t.Error("benchmarks.md of a run with gRPC cases has no gRPC section")
		}
		page.Reset()
		sample().WriteMarkdown(&page)
		if strings.Contains(page.String(), grpcSectionStart) {
			t.Error("benchmarks.md of a run without gRPC cases has a gRPC section")
		}
	})
}

// TestSpliceGRPC: -section grpc replaces the section of the page it finds, or adds it
// before make bench-cluster's, and leaves everything else byte for byte.
func TestSpliceGRPC(t *testing.T) {
	sec := grpcSectionStart + "\nnew\n" + grpcSectionEnd + "\n"
	cluster := clusterSectionMarker + "\n\n## Redis Cluster\n"
	tests := []struct {
		name, page, want, wantErr string
	}{
		{"replaced in place", "# B\n\n" + grpcSectionStart + "\nold\n" + grpcSectionEnd + "\n\n" + cluster,
			"# B\n\n" + sec + "\n" + cluster, ""},
		{"added before the cluster section", "# B\n\nimage\n\n" + cluster, "# B\n\nimage\n\n" + sec + "\n" + cluster, ""},
		{"added at the end", "# B\n\nimage\n", "# B\n\nimage\n\n" + sec, ""},
		{"one marker alone", "# B\n" + grpcSectionStart + "\n", "", "one of the gRPC section's markers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := spliceGRPC([]byte(tt.page), []byte(sec))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("got %v\n%q\nwant\n%q", err, got, tt.want)
			}
		})
	}
	t.Run("writeGRPCSection keeps the rest of the page", func(t *testing.T) {
		dir := t.TempDir()
		page := "# Benchmarks\n\ntable\n\n" + cluster
		if err := os.WriteFile(filepath.Join(dir, "benchmarks.md"), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := writeGRPCSection(grpcSample(), dir); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "benchmarks.md"))
		got := string(b)
		if !strings.HasPrefix(got, "# Benchmarks\n\ntable\n\n"+grpcSectionStart) || !strings.HasSuffix(got, grpcSectionEnd+"\n\n"+cluster) {
			t.Errorf("page:\n%s", got)
		}
	})
}
