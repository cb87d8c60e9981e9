package queuetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// clusterJob is one job of TestClusterSurvivesWorkerKill: what was submitted, through
// which server, and what the polls saw.
type clusterJob struct {
	spec jobSpec
	via  int // index of the server it was submitted to; it is polled through the other
	id   string
	last jobRecord
}

// echoJob returns the ith job of the flood: single and batch jobs of both echo
// versions, with values that a float64 on the way would change (20 digits, 2^53+1, a
// long decimal), strings that need escaping, and nested objects, all carrying i so that
// a result given to the wrong job shows.
func echoJob(i int) jobSpec {
	versions := []string{"v1", "v2", ""} // "" leaves the version to routing
	version := versions[i%len(versions)]
	nested := fmt.Sprintf(`{"i":%d,"big":12345678901234567890,"neg":-9007199254740993,`+
		`"pi":3.14159265358979323846264338327950288,"text":"ü \"q\" <tag> & \u2028 \\",`+
		`"nested":{"list":[%d,"s",null,true,{"deep":[[],{}]}],"empty":""}}`, i, i)
	if i%2 == 0 {
		return single("echo", version, nested)
	}
	items := []string{nested, fmt.Sprintf(`%d`, i), `"two"`, `null`, `[1,[2,[3]]]`}
	return batch("echo", version, items[:1+i%len(items)]...)
}

// TestClusterSurvivesWorkerKill runs the scaled-out shape of queue mode: two API servers
// and two workers on one Redis. 500 jobs are submitted through both servers in turn,
// and one worker is killed with SIGKILL while it runs some of them. Every job must end
// succeeded with its own result, read through the server it was not submitted to, within
// the documented recovery bound (about 35 s; 90 s allowed).
//
// The kill must hit a job in flight, or the recovery path goes untested. Five slow jobs
// are submitted first and the kill waits until all five run: a worker runs at most four
// at once, so the victim holds at least one of them, and they run for 5 s, so they are
// still running when it dies.
func TestClusterSurvivesWorkerKill(t *testing.T) {
	t.Parallel()
	const (
		total       = 500
		slowJobs    = 5 // one more than WORKER_CONCURRENCY: each worker holds at least one
		slowDelay   = 5 * time.Second
		submitters  = 8
		pollers     = 8
		killAfter   = 50 // submissions of the flood before the kill, so both workers are busy
		recoverTime = 90 * time.Second
	)
	c := newCluster(t)
	c.addSlowModel("slow", "v1", slowDelay)
	servers := []*server{c.startServer(), c.startServer()}
	servers[0].requireModel(t, "slow", "v1")
	c.startWorker("WORKER_CONCURRENCY=4") // the survivor
	victim := c.startWorker("WORKER_CONCURRENCY=4")

	jobs := make([]*clusterJob, total)
	for i := range jobs {
		spec := echoJob(i)
		if i < slowJobs {
			spec = single("slow", "v1", fmt.Sprintf(`{"slow":%d,"big":12345678901234567890}`, i))
		}
		jobs[i] = &clusterJob{spec: spec, via: i % 2}
	}
	other := func(j *clusterJob) *server { return servers[1-j.via] }

	for _, j := range jobs[:slowJobs] {
		j.id = servers[j.via].submit(t, j.spec)
	}
	testkit.Eventually(t, 20*time.Second, func() bool {
		for _, j := range jobs[:slowJobs] {
			if j.last = other(j).poll(t, j.id); j.last.final() {
				t.Fatalf("slow job %s ended before the kill: %+v", j.id, j.last)
			}
			if j.last.Status != "running" {
				return false
			}
		}
		return true
	}, "the slow jobs never all ran at once")

	// The flood, through both servers, from several goroutines; the victim dies early in
	// it, and no later than a second after the slow jobs were seen running.
	var (
		next      atomic.Int64
		submitted atomic.Int64
		killNow   = make(chan struct{})
		killOnce  sync.Once
		wg        sync.WaitGroup
	)
	next.Store(slowJobs)
	for range submitters {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < total; i = int(next.Add(1) - 1) {
				j := jobs[i]
				id, err := servers[j.via].trySubmit(j.spec)
				if err != nil {
					t.Errorf("job %d: %v", i, err)
					return
				}
				j.id = id
				if submitted.Add(1) == killAfter {
					killOnce.Do(func() { close(killNow) })
				}
			}
		})
	}
	select {
	case <-killNow:
	case <-time.After(time.Second):
	}
	victim.Signal(syscall.SIGKILL)
	killedAt := time.Now()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// Poll every unfinished job, through the other server, in rounds until all are final.
	left := jobs
	testkit.Eventually(t, time.Until(killedAt.Add(recoverTime)), func() bool {
		var mu sync.Mutex
		var still []*clusterJob
		work := make(chan *clusterJob)
		var pw sync.WaitGroup
		for range pollers {
			pw.Go(func() {
				for j := range work {
					rec, err := other(j).tryPoll(j.id)
					if err != nil {
						t.Errorf("job %s: %v", j.id, err)
						continue
					}
					if rank[rec.Status] < rank[j.last.Status] {
						t.Errorf("job %s went from %s back to %s", j.id, j.last.Status, rec.Status)
					}
					j.last = rec
					if !rec.final() {
						mu.Lock()
						still = append(still, j)
						mu.Unlock()
					}
				}
			})
		}
		for _, j := range left {
			work <- j
		}
		close(work)
		pw.Wait()
		if t.Failed() {
			t.FailNow()
		}
		left = still
		return len(left) == 0
	}, "every job final %s after the kill: %s", recoverTime, func() string {
		return fmt.Sprintf("%d unfinished, e.g. %+v", len(left), left[0].last)
	})
	t.Logf("all %d jobs final %s after the kill", total, time.Since(killedAt).Round(time.Millisecond))

	for i, j := range jobs {
		rec := j.last
		if rec.Status != "succeeded" || rec.JobID != j.id || rec.Model != j.spec.Model ||
			rec.Batch != (j.spec.Items != nil) || (j.spec.Version != "" && rec.Version != j.spec.Version) {
			t.Errorf("job %d (%s): record %+v, want succeeded %s/%s batch=%v", i, j.id, rec, j.spec.Model, j.spec.Version, j.spec.Items != nil)
			continue
		}
		if !testkit.SameJSON(rec.Result, j.spec.want()) {
			t.Errorf("job %d (%s): result %s, want %s", i, j.id, rec.Result, j.spec.want())
		}
	}

	// The victim's slow job was run again: it started before the kill and finished long
	// after it, when a slow job takes 5 s. Without one, the kill came too late to test
	// recovery at all.
	recovered := 0
	for _, j := range jobs[:slowJobs] {
		if j.last.StartedAt.Before(killedAt) && j.last.FinishedAt.Sub(killedAt) > 20*time.Second {
			recovered++
		}
	}
	if recovered == 0 {
		t.Errorf("no slow job was recovered from the killed worker; the kill missed them")
	}
	t.Logf("%d slow job(s) recovered from the killed worker", recovered)
}
