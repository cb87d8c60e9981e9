package queuetest

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/redistest"
)

// TestSentinelFailoverLosesNoAcceptedJob runs two servers and two workers on a Redis
// primary with two replicas behind three sentinels (QUEUE_URL redis-sentinel://), with
// QUEUE_MIN_REPLICAS=1, and kills the primary with SIGKILL in the middle of 1,000
// submissions. The sentinels promote a replica; the processes follow it by themselves.
// Every accepted job must end succeeded with its own result: its record and task had
// reached a replica before the server answered. It logs accepted, refused, succeeded,
// failed and lost jobs and the longest time a server answered 503.
func TestSentinelFailoverLosesNoAcceptedJob(t *testing.T) {
	skipShort(t) // before its own Redis starts
	t.Parallel()
	const (
		total      = 1000
		submitters = 8
		killAt     = 300 // accepted jobs before the kill
		master     = "inferd"
	)
	primary := redistest.Start(t)
	redistest.StartWith(t, redistest.Options{ReplicaOf: primary})
	redistest.StartWith(t, redistest.Options{ReplicaOf: primary})
	primary.WaitReplicas(2)
	sentinels := redistest.StartSentinels(t, primary, master, 3, 2)

	c := newClusterOn(t, primary)
	env := []string{"QUEUE_URL=" + sentinels.URL(0), "QUEUE_MIN_REPLICAS=1", "QUEUE_REPLICA_TIMEOUT=1s"}
	servers := []*server{c.startServer(env...), c.startServer(env...)}
	c.startWorker(env...)
	c.startWorker(env...)

	var killedAt time.Time
	f := runFlood(t, servers, total, submitters, killAt, 50*time.Second, func() {
		primary.Stop()
		killedAt = time.Now()
	})
	if t.Failed() {
		t.FailNow()
	}
	if killedAt.IsZero() {
		t.Fatal("the primary was never killed")
	}
	if addr, err := sentinels.Primary(); err != nil || addr == primary.Addr() {
		t.Errorf("the sentinels name %q (%v) as the primary after the flood, want a promoted replica, not %s", addr, err, primary.Addr())
	}
	// A task whose worker lost its lease in the failover is recovered after the 30 s
	// lease and may then wait out a retry delay of up to 30 s more: settle returns as
	// soon as every job is final, so the generous bound costs only a failing run.
	o := f.settle(t, servers, 2*time.Minute)
	report(t, "primary killed, replica promoted", f, o)
	if o.lost > 0 {
		dumpTasks(t, sentinels, f)
	}
}

// dumpTasks logs, for a failed run, where asynq has the tasks of the jobs that did not
// finish (the first delivery and its recoveries), read on the current primary.
func dumpTasks(t *testing.T, sentinels *redistest.Sentinels, f *flood) {
	addr, err := sentinels.Primary()
	if err != nil {
		t.Logf("no primary to read the tasks from: %v", err)
		return
	}
	rc := redis.NewClient(&redis.Options{Addr: addr})
	defer rc.Close()
	ctx := context.Background()
	for _, j := range f.jobs {
		if j.last.final() {
			continue
		}
		for _, id := range []string{j.id, j.id + ":r1", j.id + ":r2"} {
			h, err := rc.HGetAll(ctx, "asynq:{inferd}:t:"+id).Result()
			delete(h, "msg")
			t.Logf("task %s: %v %v", id, h, err)
		}
	}
	pending, _ := rc.LRange(ctx, "asynq:{inferd}:pending", 0, -1).Result()
	active, _ := rc.LRange(ctx, "asynq:{inferd}:active", 0, -1).Result()
	retry, _ := rc.ZRangeWithScores(ctx, "asynq:{inferd}:retry", 0, -1).Result()
	lease, _ := rc.ZRangeWithScores(ctx, "asynq:{inferd}:lease", 0, -1).Result()
	t.Logf("queue at %d: pending %v, active %v, retry %v, lease %v", time.Now().Unix(), pending, active, retry, lease)
}
