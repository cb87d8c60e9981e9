package queuetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/redistest"
)

// clusterBenchMarker starts the section of docs/benchmarks.md that BenchmarkRedisCluster
// writes; make bench-http keeps whatever follows it.
const clusterBenchMarker = "<!-- bench-cluster -->"

// clusterRun is one shape of BenchmarkRedisCluster and what it measured.
type clusterRun struct {
	servers, workers int
	jobs             int
	jobsPerSec       float64
	cmdsPerJob       float64 // Redis commands per job, every primary's summed
	perShard         float64 // cmdsPerJob over the shards
	busiest          float64 // the busiest primary's share of the commands
	cpuPerJob        float64 // redis-server CPU (user and system) per job, every primary's summed, µs
}

// BenchmarkRedisCluster is the capacity model's measurement: N servers and M workers
// (WORKER_CONCURRENCY=8) on a local Redis Cluster of three primaries, jobs over
// QUEUE_SHARDS=6. For each shape it reports jobs/s from the first submission to the
// last success seen, and the Redis commands a job costs (INFO's
// total_commands_processed of every primary, before and after), in all and per shard.
// Run it as make bench-cluster does, on optimised binaries; with BENCH_CLUSTER_OUT set
// it writes its section of that file.
func BenchmarkRedisCluster(b *testing.B) {
	const shards = 6
	rc := redistest.StartCluster(b, 3, 0)
	c := &cluster{tb: b, queueURL: rc.URL(), models: b.TempDir(), serverBin: binary(b, "inferd"), workerBin: binary(b, "inferd-worker")}
	env := []string{"QUEUE_SHARDS=" + strconv.Itoa(shards), "MAX_JOBS_PER_KEY=0", "MAX_JOB_BYTES_PER_KEY=0"}
	var (
		servers []*server
		workers int
		runs    []clusterRun
	)
	for _, shape := range []struct{ servers, workers int }{{1, 1}, {1, 2}, {2, 2}, {2, 4}} {
		b.Run(fmt.Sprintf("servers=%d/workers=%d", shape.servers, shape.workers), func(b *testing.B) {
			// Processes are added, never stopped: each shape grows from the last.
			for len(servers) < shape.servers {
				servers = append(servers, c.startServer(env...))
			}
			for ; workers < shape.workers; workers++ {
				c.startWorker(append(env, "WORKER_CONCURRENCY=8")...)
			}
			before := primaryStats(b, rc)
			start := time.Now()
			clusterFlood(b, servers, b.N)
			elapsed := time.Since(start)
			after := primaryStats(b, rc)
			var total, busiest int64
			var cpu float64
			for addr, st := range after {
				d := st.commands - before[addr].commands
				total += d
				busiest = max(busiest, d)
				cpu += st.cpu - before[addr].cpu
			}
			r := clusterRun{servers: shape.servers, workers: shape.workers, jobs: b.N,
				jobsPerSec: float64(b.N) / elapsed.Seconds(), cmdsPerJob: float64(total) / float64(b.N)}
			r.perShard = r.cmdsPerJob / shards
			r.busiest = float64(busiest) / float64(total)
			r.cpuPerJob = cpu / float64(b.N) * 1e6
			b.ReportMetric(r.jobsPerSec, "jobs/s")
			b.ReportMetric(r.cmdsPerJob, "redis-cmds/job")
			b.ReportMetric(r.busiest*100, "busiest-primary-%")
			b.ReportMetric(r.cpuPerJob, "redis-cpu-µs/job")
			if b.N > 1 {
				runs = append(runs, r)
			}
		})
	}
	if out := os.Getenv("BENCH_CLUSTER_OUT"); out != "" && len(runs) > 0 {
		if err := writeClusterSection(out, shards, runs); err != nil {
			b.Fatal(err)
		}
	}
}

// clusterFlood submits n echo jobs through the servers in turn from 16 goroutines,
// then polls each until it has succeeded.
func clusterFlood(b *testing.B, servers []*server, n int) {
	ids := make([]string, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				id, err := servers[i%len(servers)].trySubmit(single("echo", "v1", strconv.Itoa(i)))
				if err != nil {
					b.Error(err)
					return
				}
				ids[i] = id
			}
		})
	}
	wg.Wait()
	next.Store(0)
	deadline := time.Now().Add(2 * time.Minute)
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				for {
					rec, err := servers[(i+1)%len(servers)].tryPoll(ids[i])
					if err == nil && rec.Status == "succeeded" {
						break
					}
					if err != nil || rec.final() || time.Now().After(deadline) {
						b.Errorf("job %s: %+v %v", ids[i], rec, err)
						return
					}
					time.Sleep(5 * time.Millisecond) // the child workers run the job meanwhile: the client's poll cadence
				}
			}
		})
	}
	wg.Wait()
}

// primaryStat is what primaryStats reads of one primary.
type primaryStat struct {
	commands int64   // total_commands_processed
	cpu      float64 // used_cpu_user + used_cpu_sys, seconds
}

// primaryStats reads the commands and CPU time of every primary, by address.
func primaryStats(b *testing.B, rc *redistest.Cluster) map[string]primaryStat {
	out := map[string]primaryStat{}
	for _, s := range rc.Live() {
		c := redis.NewClient(&redis.Options{Addr: s.Addr()})
		info, err := c.Info(context.Background(), "stats", "replication", "cpu").Result()
		_ = c.Close()
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(info, "role:master") {
			continue
		}
		var st primaryStat
		for _, line := range strings.Split(info, "\r\n") {
			k, v, _ := strings.Cut(line, ":")
			switch k {
			case "total_commands_processed":
				st.commands, _ = strconv.ParseInt(v, 10, 64)
			case "used_cpu_user", "used_cpu_sys":
				f, _ := strconv.ParseFloat(v, 64)
				st.cpu += f
			}
		}
		out[s.Addr()] = st
	}
	return out
}

// writeClusterSection replaces everything from clusterBenchMarker on in the file with
// the runs' table.
func writeClusterSection(file string, shards int, runs []clusterRun) error {
	old, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	head, _, _ := bytes.Cut(old, []byte(clusterBenchMarker))
	var s strings.Builder
	s.Write(bytes.TrimRight(head, "\n"))
	fmt.Fprintf(&s, "\n\n%s\n\n## Redis Cluster: the capacity model\n\n", clusterBenchMarker)
	fmt.Fprintf(&s, "Written by `make bench-cluster` (BenchmarkRedisCluster): optimised binaries, single echo jobs submitted "+
		"through the servers in turn by 16 clients and polled until each succeeded, on a local Redis Cluster of 3 "+
		"primaries (no replicas), `QUEUE_SHARDS=%d`, `WORKER_CONCURRENCY=8`, everything on this one machine (%d CPUs, %s). "+
		"Commands per job are every primary's `total_commands_processed` over the run divided by the jobs: the "+
		"commands scripts run inside count, and so does everything else the processes send meanwhile (polls, the "+
		"workers' dequeues of every shard, heartbeats, the recoverer), which is why they fall as the load rises. "+
		"The shards' hash tags put two on each primary: the busiest primary's share is a third.\n\n", shards, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))
	s.WriteString("| servers | workers | jobs | jobs/s | Redis commands per job | per job per shard | busiest primary's share | redis-server CPU per job |\n")
	s.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		fmt.Fprintf(&s, "| %d | %d | %d | %.0f | %.1f | %.2f | %.0f%% | %.0f µs |\n", r.servers, r.workers, r.jobs, r.jobsPerSec, r.cmdsPerJob, r.perShard, r.busiest*100, r.cpuPerJob)
	}
	return os.WriteFile(file, []byte(s.String()), 0o644)
}
