package queuetest

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// memtestSize reads a size of TestJobBytesBudgetHoldsRedis from the environment, or
// gives its default.
func memtestSize(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive whole number", name, v)
	}
	return n
}

// usedMemory is Redis's INFO memory used_memory: every byte its allocator holds, for
// data, clients' buffers and its own bookkeeping.
func usedMemory(tb testing.TB, rc *redis.Client) int64 {
	tb.Helper()
	info, err := rc.Info(context.Background(), "memory").Result()
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatalf("no used_memory in INFO memory:\n%s", info)
	return 0
}

// jobMemory is what Redis holds for inferd's job keys (records, and the sets that
// count them per key), by MEMORY USAGE: each value's allocation, its key and entry.
func jobMemory(tb testing.TB, rc *redis.Client) int64 {
	tb.Helper()
	ctx := context.Background()
	var sum int64
	iter := rc.Scan(ctx, 0, "inferd:job*", 1000).Iterator()
	for iter.Next(ctx) {
		n, err := rc.MemoryUsage(ctx, iter.Val(), 0).Result()
		if err != nil && !errors.Is(err, redis.Nil) { // a record may expire meanwhile
			tb.Fatal(err)
		}
		sum += n
	}
	if err := iter.Err(); err != nil {
		tb.Fatal(err)
	}
	return sum
}

// TestJobBytesBudgetHoldsRedis (see docs/design.md#job-records-are-bounded-per-key): one key submits far more 1 MB-ish
// echo jobs than its MAX_JOB_BYTES_PER_KEY holds, through a server and a worker on one
// Redis. Redis's used_memory stays within the budget of where it started, while the
// jobs wait and run and after they finished (their results count until JOB_TTL); the
// submissions past it are 429 job_bytes_limited, with a Retry-After of about JOB_TTL
// once every accepted job has finished; and the budget is used, not refused early.
//
// In CI it sends 48 jobs of 256 KB against an 8 MB budget. The figure is
// 1,000 jobs of 1 MB under a 100 MB budget:
//
//	INFERD_MEMTEST_JOBS=1000 INFERD_MEMTEST_JOB_BYTES=1000000 INFERD_MEMTEST_BUDGET=100000000 \
//	  go test -count=1 -v -run TestJobBytesBudgetHoldsRedis ./internal/app/queuetest
func TestJobBytesBudgetHoldsRedis(t *testing.T) {
	t.Parallel()
	var (
		jobs     = memtestSize(t, "INFERD_MEMTEST_JOBS", 48)
		jobBytes = memtestSize(t, "INFERD_MEMTEST_JOB_BYTES", 256_000)
		budget   = int64(memtestSize(t, "INFERD_MEMTEST_BUDGET", 8_000_000))
	)
	const ttl = time.Hour
	c := newCluster(t)
	s := c.startServer("MAX_JOB_BYTES_PER_KEY="+strconv.FormatInt(budget, 10),
		"MAX_REQUEST_BYTES="+strconv.Itoa(jobBytes+64<<10), "JOB_TTL="+ttl.String(), "MAX_JOBS_PER_KEY=0")
	c.startWorker("JOB_TTL=" + ttl.String())
	rc := c.redis.Client()
	// What Redis holds before any job, with the server and the worker connected.
	base := usedMemory(t, rc)
	peak, peakJobs := base, int64(0)
	sample := func() {
		peak, peakJobs = max(peak, usedMemory(t, rc)), max(peakJobs, jobMemory(t, rc))
	}

	spec := single("echo", "v1", `"`+strings.Repeat("x", jobBytes)+`"`)
	start := time.Now()
	var ids []string
	refused := 0
	for i := range jobs {
		resp := s.api.Post(spec.path(), devKey, spec)
		switch resp.Status {
		case http.StatusOK:
			var out struct {
				JobID string `json:"job_id"`
			}
			resp.JSON(t, &out)
			ids = append(ids, out.JobID)
		case http.StatusTooManyRequests:
			if p := resp.Problem(t); p.Code != "job_bytes_limited" {
				t.Fatalf("job %d: 429 %s (%s), want job_bytes_limited", i, p.Code, p.Detail)
			}
			if resp.Header.Get("Retry-After") == "" {
				t.Fatalf("job %d: 429 job_bytes_limited without Retry-After", i)
			}
			refused++
		default:
			t.Fatalf("job %d: %d %.300s", i, resp.Status, resp.Body)
		}
		sample()
	}
	for _, id := range ids {
		s.waitStatus(t, id, "succeeded", 60*time.Second)
		sample()
	}
	sample()
	// Redis frees a client's query buffer once it has been idle for 2 s.
	time.Sleep(3 * time.Second) // for redis-server to free the idle clients' query buffers
	after, afterJobs := usedMemory(t, rc), jobMemory(t, rc)

	mb := func(n int64) string { return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB" }
	t.Logf("%d jobs of %d bytes, budget %s: %d accepted, %d refused", jobs, jobBytes, mb(budget), len(ids), refused)
	t.Logf("Redis used_memory: %s before; peak %s (+%s); %s once the jobs finished and its clients idled (+%s)",
		mb(base), mb(peak), mb(peak-base), mb(after), mb(after-base))
	t.Logf("job records and their counts (MEMORY USAGE of inferd:job*): peak %s; %s once the jobs finished",
		mb(peakJobs), mb(afterJobs))
	if peakJobs > budget {
		t.Errorf("the key's job records took %s of Redis, more than its budget of %s", mb(peakJobs), mb(budget))
	}
	// Besides records, Redis holds clients' buffers for the requests in flight (an
	// input on its way in, a record on its way out), at most a request's bytes per
	// connection for a few seconds, and bookkeeping of its own.
	if allowance := 16 * int64(jobBytes); peak-base > budget+allowance {
		t.Errorf("Redis grew by %s, more than the key's budget of %s and %s of buffers", mb(peak-base), mb(budget), mb(allowance))
	}
	if int64(jobs)*int64(jobBytes) > 2*budget && refused == 0 {
		t.Errorf("no submission refused for %d jobs of %d bytes under a budget of %s", jobs, jobBytes, mb(budget))
	}
	// Each record costs its size rounded up to an allocator class (a quarter more at
	// worst) and 512 bytes: the budget holds at least 3/4 of its size in inputs.
	if used := int64(len(ids)) * int64(jobBytes); used < budget*3/4-int64(jobBytes) {
		t.Errorf("%d jobs accepted (%s of input) under a budget of %s: refused too early", len(ids), mb(used), mb(budget))
	}

	// Every accepted job has finished: the next submission waits for the first result
	// to expire, JOB_TTL after it finished, which was after the test started.
	resp := s.api.Post(spec.path(), devKey, spec)
	if resp.Status != http.StatusTooManyRequests || resp.Problem(t).Code != "job_bytes_limited" {
		t.Fatalf("a submission over the budget once its jobs finished: %d %.300s", resp.Status, resp.Body)
	}
	lo := int((ttl - time.Since(start)).Seconds()) - 1
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < lo || ra > int(ttl.Seconds()) {
		t.Errorf("Retry-After %q, want from %d to %d: when the first result expires (JOB_TTL)", resp.Header.Get("Retry-After"), lo, int(ttl.Seconds()))
	}
	// Another key has a budget of its own.
	resp = s.api.Post(spec.path(), adminKey, spec)
	if resp.Status != http.StatusOK {
		t.Errorf("another key: %d %.300s, want 200", resp.Status, resp.Body)
	}
}
