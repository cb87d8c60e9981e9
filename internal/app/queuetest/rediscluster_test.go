package queuetest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job/queue"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
)

// clusterShards is QUEUE_SHARDS in the Redis Cluster tests.
const clusterShards = 4

// shardTag is the hash tag of shard k's keys, as the servers and workers name it.
func shardTag(k int) string {
	return "{" + redisstore.Shards{Queue: queue.DefaultQueue, N: clusterShards}.Name(k) + "}"
}

// newRedisCluster starts a Redis Cluster of three primaries with replicas replicas each
// and a model repository, for servers and workers with QUEUE_URL redis-cluster:// and
// QUEUE_SHARDS=clusterShards.
func newRedisCluster(t *testing.T, replicas int) (*cluster, *redistest.Cluster, []string) {
	t.Helper()
	rc := redistest.StartCluster(t, 3, replicas)
	c := &cluster{
		tb:        t,
		queueURL:  rc.URL(),
		models:    t.TempDir(),
		serverBin: binary(t, "inferd"),
		workerBin: binary(t, "inferd-worker"),
	}
	return c, rc, []string{fmt.Sprintf("QUEUE_SHARDS=%d", clusterShards)}
}

// TestRedisClusterRunsEveryJobOnce runs two servers and two workers on a Redis Cluster
// (QUEUE_URL redis-cluster://, four shards): 5,000 jobs submitted through both servers
// each succeed once with their own result, read through the other server; the workers
// record 5,000 successes between them; and the shards' keys are spread over all three
// primaries (CLUSTER COUNTKEYSINSLOT of each shard's slot, on the node that serves it).
// The dashboard then lists every shard's queue and pauses and resumes one, and the
// queue gauge reads 0.
func TestRedisClusterRunsEveryJobOnce(t *testing.T) {
	t.Parallel()
	const (
		total      = 5000
		submitters = 16
	)
	c, rc, env := newRedisCluster(t, 1)
	// One key submits them all: MAX_JOBS_PER_KEY is shared out among the shards, so
	// it must hold the whole flood.
	env = append(env, "MAX_JOBS_PER_KEY=0", "MAX_JOB_BYTES_PER_KEY=0")
	servers := []*server{c.startServer(env...), c.startServer(env...)}
	workers := []*worker{c.startWorker(env...), c.startWorker(env...)}

	start := time.Now()
	f := runFlood(t, servers, total, submitters, total, time.Minute, func() {})
	if t.Failed() {
		t.FailNow()
	}
	o := f.settle(t, servers, time.Minute)
	took := time.Since(start)
	report(t, "redis cluster, 4 shards", f, o)
	t.Logf("%d jobs through 2 servers and 2 workers in %s: %.0f jobs/s", total, took.Round(time.Millisecond), total/took.Seconds())

	var ran float64
	for _, w := range workers {
		ran += metric(t, w.Proc, `inferd_jobs_finished_total{status="succeeded"}`)
	}
	if ran != total {
		t.Errorf("the workers recorded %.0f successes, want %d: each job once", ran, total)
	}

	ctx := context.Background()
	cc := rc.Client()
	perPrimary := map[string]int64{}
	for k := range clusterShards {
		tag := shardTag(k)
		slot, err := cc.ClusterKeySlot(ctx, tag).Result()
		if err != nil {
			t.Fatal(err)
		}
		node := rc.PrimaryOf(tag)
		n, err := node.Client().ClusterCountKeysInSlot(ctx, int(slot)).Result()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("shard %d: slot %d on %s holds %d keys", k, slot, node.Addr(), n)
		// Each job's record, at least, is in its shard's slot.
		if n < total/clusterShards/2 {
			t.Errorf("shard %d's slot %d holds %d keys, want about %d jobs' records and more", k, slot, n, total/clusterShards)
		}
		perPrimary[node.Addr()] += n
	}
	if len(perPrimary) < 3 {
		t.Errorf("the shards' keys are on %d primaries (%v), want 3", len(perPrimary), perPrimary)
	}
	// Nothing of a job outside its shard's slot: every record key carries a tag.
	for addr, n := range rc.KeysPerPrimary("inferd:job:") {
		if n > 0 && perPrimary[addr] == 0 {
			t.Errorf("%s holds %d job records but serves no shard", addr, n)
		}
	}
	// The dashboard lists every shard's queue, and pauses and resumes one, from a
	// cluster client of its own; the queue gauge sums the shards.
	dash := func(method, path string) (int, string) {
		req := servers[0].api.NewRequest(method, "/admin/queues/api/queues"+path, adminKey, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := dash(http.MethodGet, "")
	for k := range clusterShards {
		if name := strings.Trim(shardTag(k), "{}"); status != http.StatusOK || !strings.Contains(body, `"`+name+`"`) {
			t.Errorf("the dashboard's queues (%d) do not list %s: %s", status, name, body)
		}
	}
	name := strings.Trim(shardTag(1), "{}")
	for _, step := range []struct {
		action string
		paused bool
	}{{"pause", true}, {"resume", false}} {
		if status, body := dash(http.MethodPost, "/"+name+":"+step.action); status != http.StatusNoContent {
			t.Errorf("%s %s: %d %s", step.action, name, status, body)
		}
		_, body := dash(http.MethodGet, "/"+name)
		if got := strings.Contains(body, `"paused":true`); got != step.paused {
			t.Errorf("after %s %s the dashboard says paused %v: %s", step.action, name, got, body)
		}
	}
	if q := metric(t, servers[0].Proc, "inferd_jobs_queued"); q != 0 {
		t.Errorf("inferd_jobs_queued is %v after every job finished", q)
	}

	for _, s := range servers {
		if logs := s.Logs(); strings.Contains(logs, "CROSSSLOT") || strings.Contains(logs, "non local key") {
			t.Errorf("a server met keys of several slots in one command: %s", logs)
		}
	}
}

// TestRedisClusterFailoverLosesNoAcceptedJob runs two servers and two workers on a Redis
// Cluster of three primaries with two replicas each, four shards, QUEUE_MIN_REPLICAS=1,
// and kills with SIGKILL the primary of shard 0 in the middle of 1,000 submissions.
// The cluster promotes one of its replicas (which still has one of its own, so WAIT
// can be met again); the processes follow it by themselves. Every accepted job must end
// succeeded with its own result: its record and task had reached a replica before the
// server answered. It logs the longest time a server answered 503.
func TestRedisClusterFailoverLosesNoAcceptedJob(t *testing.T) {
	t.Parallel()
	const (
		total      = 1000
		submitters = 8
		killAt     = 300 // accepted jobs before the kill
	)
	began := time.Now()
	c, rc, env := newRedisCluster(t, 2)
	t.Logf("cluster of 9 nodes up in %s", time.Since(began).Round(time.Millisecond))
	// The jobs of the killed shards wait out the failover: their shares of
	// MAX_JOBS_PER_KEY would fill before the flood ends.
	env = append(env, "QUEUE_MIN_REPLICAS=1", "QUEUE_REPLICA_TIMEOUT=1s", "MAX_JOBS_PER_KEY=0")
	servers := []*server{c.startServer(env...), c.startServer(env...)}
	c.startWorker(env...)
	c.startWorker(env...)

	victim := rc.PrimaryOf(shardTag(0))
	var killedAt time.Time
	f := runFlood(t, servers, total, submitters, killAt, time.Minute, func() {
		victim.Stop()
		killedAt = time.Now()
	})
	if t.Failed() {
		t.FailNow()
	}
	if killedAt.IsZero() {
		t.Fatal("the primary was never killed")
	}
	f.mu.Lock()
	t.Logf("flood over %s after the kill; the last 503 came %s after it", time.Since(killedAt).Round(time.Millisecond),
		f.last503.Sub(killedAt).Round(time.Millisecond))
	f.mu.Unlock()
	rc.Failover(victim, 3) // already dead: waits for the promotion to be seen everywhere
	if p := rc.PrimaryOf(shardTag(0)); p == victim {
		t.Errorf("%s still serves shard 0 after it was killed", p.Addr())
	}
	// As with Sentinel: a task whose worker lost its lease in the failover is recovered
	// after the 30 s lease and may wait out a retry delay as well.
	o := f.settle(t, servers, 2*time.Minute)
	report(t, "redis cluster, primary of shard 0 killed, replica promoted", f, o)
}

// TestRedisClusterAfterFailoverRefusesNothing runs two servers and two workers on a Redis
// Cluster of three primaries with a replica each, four shards, and submits jobs on
// every shard, so that each process holds connections to every primary. Then the
// primary of shard 0 is killed (SIGKILL) and the test waits until its replica is
// promoted and every node reports cluster_state:ok. From then on nothing may be
// refused: 300 submissions are each accepted at the first try (a connection error to
// the dead primary makes the client re-read the map of slots and send the command
// again, to the new one), and every job ends succeeded, so the workers went on taking
// jobs from the promoted node.
func TestRedisClusterAfterFailoverRefusesNothing(t *testing.T) {
	t.Parallel()
	const total = 300
	c, rc, env := newRedisCluster(t, 1)
	env = append(env, "MAX_JOBS_PER_KEY=0")
	servers := []*server{c.startServer(env...), c.startServer(env...)}
	c.startWorker(env...)
	c.startWorker(env...)

	warm := runFlood(t, servers, 100, 4, 100, time.Minute, func() {})
	if t.Failed() {
		t.FailNow()
	}
	report(t, "redis cluster, before the failover", warm, warm.settle(t, servers, time.Minute))

	victim := rc.PrimaryOf(shardTag(0))
	began := time.Now()
	rc.Failover(victim, 3)
	t.Logf("%s killed; its replica promoted and the cluster ok in %s", victim.Addr(), time.Since(began).Round(time.Millisecond))
	if p := rc.PrimaryOf(shardTag(0)); p == victim {
		t.Fatalf("%s still serves shard 0 after it was killed", p.Addr())
	}

	f := runFlood(t, servers, total, 4, total, 2*time.Minute, func() {})
	if t.Failed() {
		t.FailNow()
	}
	o := f.settle(t, servers, 2*time.Minute)
	report(t, "redis cluster, after the failover", f, o)
	if n := f.refused.Load(); n > 0 {
		t.Errorf("%d of %d submissions after the cluster recovered were refused (503)", n, total)
	}
}
