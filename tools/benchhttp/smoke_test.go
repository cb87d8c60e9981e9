package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSmoke runs the whole harness against the real binaries for a moment per case:
// every process starts, every case answers without errors, the memory readings exist
// and the files are written. Its figures mean nothing; `make bench-http` measures.
func TestSmoke(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/inferd", "./cmd/inferd-worker")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building inferd: %v\n%s", err, out)
	}
	_, redisErr := exec.LookPath("redis-server")
	if redisErr != nil && os.Getenv("CI") == "true" {
		t.Fatalf("redis-server is not installed, and CI=true makes that a failure: %v", redisErr)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Root: root, BinDir: bin, ModelsDir: filepath.Join(root, "models"), EchoBin: self,
		Conns: []int{1, 4}, Duration: 200 * time.Millisecond,
		MemFirst: 200, MemTotal: 1000, PickupJobs: 2, Reloads: 3,
		OIPTensorBytes: 4096, // 1 MiB as JSON may take longer than a 200 ms case on a busy machine
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}

	_, digitsErr := os.Stat(filepath.Join(cfg.ModelsDir, "digits", "v1", "model.yaml"))
	wantNA := map[string]bool{
		CaseDigitsOn:       digitsErr != nil,
		CaseDigitsOff:      digitsErr != nil,
		CaseDigitsV2JSON:   digitsErr != nil,
		CaseDigitsV2Binary: digitsErr != nil,
		CaseDigitsGRPCRaw:  digitsErr != nil,
		CaseDigitsGRPC:     digitsErr != nil,
		CaseQueue:          redisErr != nil,
	}
	seen := map[string]int{}
	var serverCPU, clientCPU time.Duration
	for _, r := range rep.Results {
		serverCPU += r.ServerCPU
		clientCPU += r.ClientCPU
		t.Run(r.Case+"/"+itoa(r.Conns), func(t *testing.T) {
			seen[r.Case]++
			if (r.NA != "") != wantNA[r.Case] {
				t.Fatalf("n/a = %q, want n/a %v", r.NA, wantNA[r.Case])
			}
			if r.NA != "" {
				return
			}
			if r.Errors > 0 || r.Requests == 0 || r.Items < r.Requests || r.P50 <= 0 || r.P99 < r.P50 {
				t.Errorf("%+v: want requests, no errors, items >= requests, 0 < p50 <= p99", r)
			}
		})
	}
	for _, c := range []string{Baseline, CaseEcho, CaseIris, CaseIrisV2JSON, CaseFloor, CaseDigitsOn, CaseDigitsOff, CaseBatch, CaseAsync, CaseQueue, CaseOIPJSON, CaseOIPBinary,
		CaseOIPGRPCRaw, CaseOIPGRPC, CaseDigitsV2JSON, CaseDigitsV2Binary, CaseDigitsGRPCRaw, CaseDigitsGRPC,
		CaseHealthBare, CaseHealth, CaseGraphOne, CaseEnsemble, CaseEnsemblePairs} {
		if seen[c] != len(cfg.Conns) {
			t.Errorf("case %q has %d rows, want %d", c, seen[c], len(cfg.Conns))
		}
	}
	// Per row, a short case may take less than one clock tick; over the run, both sides
	// must have been read.
	if serverCPU <= 0 || clientCPU <= 0 {
		t.Errorf("CPU time: servers %s, load generator %s over the run; want both above 0", serverCPU, clientCPU)
	}
	if m := rep.Memory; m == nil || m.IdleKB <= 0 || m.FirstKB <= 0 || m.TotalKB <= 0 {
		t.Errorf("memory readings missing: %+v", m)
	}
	if s := rep.Reloads; s == nil || s.NA == "" && (s.N != 3 || s.StartKB <= 0 || s.FirstKB <= 0 || s.AfterKB <= 0) {
		t.Errorf("reload soak: %+v", s)
	}
	if redisErr == nil && (rep.PickupN != 2 || rep.PickupP50 <= 0) {
		t.Errorf("queue idle pickup: %d jobs, p50 %v; want 2 jobs and a p50", rep.PickupN, rep.PickupP50)
	}

	out := t.TempDir()
	rep.Machine = machine("benchhttp (smoke test)")
	if err := writeFiles(rep, out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"benchmarks.md", "benchmarks.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
