package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if addr := os.Getenv(echoAddrEnv); addr != "" {
		if err := serveEcho(addr); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp baseline:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run(os.Args[1:]))
}

// options are the command line's flags.
type options struct {
	bin, models, conns, out, command, cases string
	section                                 string
	duration, warmup                        time.Duration
	rounds                                  int
	isolate                                 bool
	memFirst, memTotal, pickup, reloads     int
}

func newFlagSet() (*flag.FlagSet, *options) {
	o := &options{}
	fs := flag.NewFlagSet("benchhttp", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", "bin", "directory holding inferd and inferd-worker (make build)")
	fs.StringVar(&o.models, "models", "models", "the model repository inferd serves")
	fs.StringVar(&o.conns, "conns", "1,16,64", "connection counts, comma-separated")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "measured time per case and connection count")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds of every case at every connection count; each row is the round of median throughput")
	fs.DurationVar(&o.warmup, "warmup", 500*time.Millisecond, "warm-up before each measurement, not counted")
	fs.IntVar(&o.memFirst, "mem-first", 10_000, "echo requests before the first RSS reading after traffic")
	fs.IntVar(&o.memTotal, "mem-total", 1_000_000, "echo requests before the last RSS reading")
	fs.IntVar(&o.pickup, "pickup-jobs", 20, "jobs of queue mode's idle-pickup measurement")
	fs.IntVar(&o.reloads, "reloads", 100, "reloads of models/digits in the reload soak (RSS after the first and the last); 0: no soak")
	fs.BoolVar(&o.isolate, "isolate", true, "measure each case with the load generator and its servers under SCHED_RR, so that other processes' time slices stay out of the latencies (needs CAP_SYS_NICE; refused, the run says so and shares the CPU), and repeat the tail section's cases under the default scheduler")
	fs.StringVar(&o.out, "out", "docs", "directory for benchmarks.md and benchmarks.svg; empty: print only")
	fs.StringVar(&o.command, "command", "", "the command line the report names (make bench-http passes its own)")
	fs.StringVar(&o.cases, "cases", "", "only the cases whose names contain one of these comma-separated words (\"v2 infer,iris\"); the baseline always runs. Empty: every case, the memory run and queue mode's pickup")
	fs.StringVar(&o.section, "section", "", "\"grpc\": rewrite only the gRPC section of benchmarks.md (REST and gRPC side by side, issue 28's targets), \"tensors\": only the tensors section (/v2 infer beside /predict, the 1 MB tensor beside its floor, issue 29's targets), \"xgboost\": only the XGBoost section (models/wine/v1 by /predict and /v2 beside iris and XGBoost's own predict, issue 38's targets), \"graphs\": only the model graphs section (a graph of one step beside its model, iris-ensemble beside its members called in turn, issue 39's targets), \"tail\": only the tail latency section (p50, p90 and p99 of /health, echo's and iris's /predict beside the bare server, issue 41's targets), \"reload\": only the reload soak (RSS after -reloads reloads of digits, issue 41's target), no case; the rest of the page and the chart stay as they are; without -cases it runs that section's cases. Empty: the whole page")
	return fs, o
}

func run(args []string) int {
	fs, o := newFlagSet()
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := configOf(o.bin, o.models, o.conns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchhttp:", err)
		return 2
	}
	cfg.Duration, cfg.Warmup, cfg.Rounds, cfg.Reloads, cfg.Isolate = o.duration, o.warmup, o.rounds, o.reloads, o.isolate
	switch o.section {
	case "":
	case "grpc":
		if o.cases == "" {
			o.cases = strings.Join(grpcSectionWords, ",")
		}
	case "tensors":
		if o.cases == "" {
			o.cases = strings.Join(tensorsSectionWords, ",")
		}
	case "xgboost":
		if o.cases == "" {
			o.cases = strings.Join(xgboostSectionWords, ",")
		}
	case "graphs":
		if o.cases == "" {
			o.cases = strings.Join(graphsSectionWords, ",")
		}
	case "tail":
		if o.cases == "" {
			o.cases = strings.Join(tailSectionWords, ",")
		}
	case "reload":
		cfg.OnlyReloads = true
	default:
		fmt.Fprintf(os.Stderr, "benchhttp: -section %q: the sections are grpc, tensors, xgboost, graphs, tail and reload\n", o.section)
		return 2
	}
	for _, c := range strings.Split(o.cases, ",") {
		if c = strings.TrimSpace(c); c != "" {
			cfg.Cases = append(cfg.Cases, strings.ToLower(c))
		}
	}
	cfg.MemFirst, cfg.MemTotal, cfg.PickupJobs = o.memFirst, o.memTotal, o.pickup
	if cfg.MemTotal < cfg.MemFirst {
		fmt.Fprintln(os.Stderr, "benchhttp: -mem-total must be at least -mem-first")
		return 2
	}
	cfg.Progress = os.Stderr

	cmd := o.command
	if cmd == "" {
		cmd = strings.Join(append([]string{"benchhttp"}, args...), " ")
	}
	// Described before the run: the commit measured is the one checked out when it began.
	m := machine(cmd)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchhttp:", err)
		return 1
	}
	rep.Machine = m
	rep.WriteTable(os.Stdout)
	switch {
	case o.out == "":
	case o.section == "grpc":
		if err := writeGRPCSection(rep, o.out); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			return 1
		}
		fmt.Printf("\nwrote the gRPC section of %s\n", filepath.Join(o.out, "benchmarks.md"))
	case o.section == "tensors":
		if err := writeTensorsSection(rep, o.out); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			return 1
		}
		fmt.Printf("\nwrote the tensors section of %s\n", filepath.Join(o.out, "benchmarks.md"))
	case o.section == "xgboost":
		if err := writeXGBoostSection(rep, o.out); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			return 1
		}
		fmt.Printf("\nwrote the XGBoost section of %s\n", filepath.Join(o.out, "benchmarks.md"))
	case o.section == "graphs":
		if err := writeGraphsSection(rep, o.out); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			return 1
		}
		fmt.Printf("\nwrote the graphs section of %s\n", filepath.Join(o.out, "benchmarks.md"))
	case o.section == "tail":
		if err := writeTailSection(rep, o.out); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			return 1
		}
		fmt.Printf("\nwrote the tail section of %s\n", filepath.Join(o.out, "benchmarks.md"))
	case o.section == "reload":
		var section bytes.Buffer
		rep.WriteReloads(&section, true)
		if err := rewriteSection(o.out, section.Bytes(), reloadSectionStart, reloadSectionEnd, "reload"); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			return 1
		}
		fmt.Printf("\nwrote the reload section of %s\n", filepath.Join(o.out, "benchmarks.md"))
	default:
		if err := writeFiles(rep, o.out); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			return 1
		}
		fmt.Printf("\nwrote %s and %s\n", filepath.Join(o.out, "benchmarks.md"), filepath.Join(o.out, "benchmarks.svg"))
	}
	return 0
}

// configOf resolves the paths (children run in the working directory, where inferd
// finds .onnxruntime/) and the connection counts.
func configOf(bin, models, conns string) (Config, error) {
	var cfg Config
	var err error
	if cfg.Root, err = os.Getwd(); err != nil {
		return cfg, err
	}
	if cfg.BinDir, err = filepath.Abs(bin); err != nil {
		return cfg, err
	}
	if cfg.ModelsDir, err = filepath.Abs(models); err != nil {
		return cfg, err
	}
	if cfg.EchoBin, err = os.Executable(); err != nil {
		return cfg, err
	}
	for _, f := range strings.Split(conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-conns: %q is not a positive number", f)
		}
		cfg.Conns = append(cfg.Conns, n)
	}
	return cfg, nil
}

// clusterSectionMarker starts the section of benchmarks.md that make bench-cluster
// writes (internal/app/queuetest's BenchmarkRedisCluster).
const clusterSectionMarker = "<!-- bench-cluster -->"

func writeFiles(rep *Report, dir string) error {
	var md, svg bytes.Buffer
	rep.WriteMarkdown(&md)
	// make bench-cluster writes the section from its marker on: keep it.
	if old, err := os.ReadFile(filepath.Join(dir, "benchmarks.md")); err == nil {
		if i := bytes.Index(old, []byte(clusterSectionMarker)); i >= 0 {
			md.WriteString("\n")
			md.Write(old[i:])
		}
	}
	WriteSVG(&svg, rep.Results, "inferd: throughput against p99 latency ("+rep.Machine.Date.UTC().Format("2006-01-02")+", "+rep.Machine.Commit+")")
	if err := os.WriteFile(filepath.Join(dir, "benchmarks.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "benchmarks.svg"), svg.Bytes(), 0o644)
}

// writeGRPCSection rewrites the gRPC section of dir's benchmarks.md, which must exist.
func writeGRPCSection(rep *Report, dir string) error {
	var section bytes.Buffer
	rep.WriteGRPC(&section, true)
	return rewriteSection(dir, section.Bytes(), grpcSectionStart, grpcSectionEnd, "gRPC")
}

// writeTensorsSection rewrites the tensors section of dir's benchmarks.md, which must
// exist.
func writeTensorsSection(rep *Report, dir string) error {
	var section bytes.Buffer
	rep.WriteTensors(&section, true)
	return rewriteSection(dir, section.Bytes(), tensorsSectionStart, tensorsSectionEnd, "tensors")
}

// writeXGBoostSection rewrites the XGBoost section of dir's benchmarks.md, which must
// exist.
func writeXGBoostSection(rep *Report, dir string) error {
	var section bytes.Buffer
	rep.WriteXGBoost(&section, true)
	return rewriteSection(dir, section.Bytes(), xgboostSectionStart, xgboostSectionEnd, "XGBoost")
}

// writeGraphsSection rewrites the graphs section of dir's benchmarks.md, which must
// exist.
func writeGraphsSection(rep *Report, dir string) error {
	var section bytes.Buffer
	rep.WriteGraphs(&section, true)
	return rewriteSection(dir, section.Bytes(), graphsSectionStart, graphsSectionEnd, "graphs")
}

// writeTailSection rewrites the tail section of dir's benchmarks.md, which must exist.
func writeTailSection(rep *Report, dir string) error {
	var section bytes.Buffer
	rep.WriteTail(&section, true)
	return rewriteSection(dir, section.Bytes(), tailSectionStart, tailSectionEnd, "tail")
}

// rewriteSection splices section into dir's benchmarks.md (spliceSection).
func rewriteSection(dir string, section []byte, start, end, what string) error {
	path := filepath.Join(dir, "benchmarks.md")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	page, err := spliceSection(old, section, start, end, what)
	if err != nil {
		return err
	}
	return os.WriteFile(path, page, 0o644)
}

// machine describes this machine and checkout for the report's header.
func machine(command string) Machine {
	m := Machine{CPU: "unknown CPU", Cores: runtime.NumCPU(), Go: runtime.Version(), Commit: "unknown", Date: time.Now(), Command: command}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=12").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
	}
	return m
}
