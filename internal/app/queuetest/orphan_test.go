package queuetest

import (
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// The recovery bound of an orphaned job (package queue's doc): asynq's 30 s lease, which
// a killed worker no longer extends, then at most one look of a worker's recoverer
// (WorkerOptions.RecoverInterval, 5 s by default).
const (
	asynqLease      = 30 * time.Second
	recoverInterval = 5 * time.Second
	// recoverSlack covers what the bound leaves out: lease times in whole seconds, the
	// pickup of the re-enqueued task, a slow job's delay overrunning on a loaded machine.
	recoverSlack = 5 * time.Second
	// heardWithin bounds how long before its kill a worker last renewed its lease: its
	// heartbeat renews it every 5 s, and a loaded machine delays a beat.
	heardWithin = 10 * time.Second
)

// TestOrphanRecoveryTime (see docs/design.md#orphaned-jobs-run-again-within-seconds): a job whose worker is killed with
// SIGKILL mid-run runs again on another worker within the lease plus one recovery
// interval, both normally and after Redis restarted empty under the running processes
// (where recovery once took 69 s). While it still reads running, before it runs
// again, its record says its worker is lost (when it was last heard from) and when it
// runs again; the other worker's job says nothing of the kind. Built binaries, real
// redis-server; each case takes about 40 s, in parallel with the other tests.
func TestOrphanRecoveryTime(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for asynq's 30 s lease to run out")
	}
	t.Parallel()
	for _, wipe := range []bool{false, true} {
		name := "normally"
		if wipe {
			name = "after a Redis wipe"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const delay = 5 * time.Second // the jobs run this long
			c := newCluster(t)
			c.addSlowModel("slow", "v1", delay)
			s := c.startServer()
			s.requireModel(t, "slow", "v1")
			// One job at a time each: two jobs running at once are one on each worker.
			victim := c.startWorker("WORKER_CONCURRENCY=1")
			c.startWorker("WORKER_CONCURRENCY=1")

			if wipe {
				s.waitStatus(t, s.submit(t, single("echo", "v1", `0`)), "succeeded", 30*time.Second)
				c.redis.Restart() // empty: no persistence
				testkit.Eventually(t, 30*time.Second, func() bool {
					id, err := s.trySubmit(single("echo", "v1", `1`))
					if err != nil {
						return false
					}
					s.waitStatus(t, id, "succeeded", 30*time.Second)
					return true
				}, "a job succeeds after the restart")
			}

			ids := []string{s.submit(t, single("slow", "v1", `"a"`)), s.submit(t, single("slow", "v1", `"b"`))}
			testkit.Eventually(t, delay-time.Second, func() bool {
				for _, id := range ids {
					if s.poll(t, id).Status != "running" {
						return false
					}
				}
				return true
			}, "both slow jobs running at once")
			victim.Signal(syscall.SIGKILL)
			killed := time.Now()

			// The report comes once the lease has gone unrenewed for 15 s, within one
			// look of a recoverer (5 s): about 10 s before the lease ends and the job
			// is queued again.
			var lost jobRecord
			var seen time.Time
			testkit.Eventually(t, asynqLease+recoverInterval+recoverSlack, func() bool {
				for _, id := range ids {
					if rec := s.poll(t, id); rec.WorkerLostAt != nil {
						lost, seen = rec, time.Now()
						return true
					}
				}
				return false
			}, "a record that names its lost worker")
			t.Logf("the record named its lost worker %s after the kill: worker_lost_at %s before the kill, retry_at %s after the report",
				seen.Sub(killed).Round(100*time.Millisecond), killed.Sub(*lost.WorkerLostAt).Round(100*time.Millisecond), lost.RetryAt.Sub(seen).Round(100*time.Millisecond))
			switch {
			case lost.Status != "running":
				t.Errorf("the lost worker's job reads %s, want running", lost.Status)
			case lost.RetryAt == nil || lost.RetryAt.Sub(*lost.WorkerLostAt) != asynqLease:
				t.Errorf("retry_at %v, want worker_lost_at %v + the lease (%s)", lost.RetryAt, lost.WorkerLostAt, asynqLease)
			case lost.WorkerLostAt.After(killed) || lost.WorkerLostAt.Before(killed.Add(-heardWithin)):
				t.Errorf("worker_lost_at %v, want at most %s before the kill at %v", lost.WorkerLostAt, heardWithin, killed)
			case !seen.Before(*lost.RetryAt):
				t.Errorf("the record named its lost worker at %v, no sooner than retry_at %v: not while the job waited", seen, lost.RetryAt)
			}

			// The victim's job runs again from the start, so it finishes delay after its
			// second run began.
			var recovery time.Duration
			bound := asynqLease + recoverInterval + recoverSlack
			for _, id := range ids {
				rec := s.waitStatus(t, id, "succeeded", bound+delay+10*time.Second)
				recovery = max(recovery, rec.FinishedAt.Add(-delay).Sub(killed))
				if id == lost.JobID {
					if rec.WorkerLostAt == nil || !rec.WorkerLostAt.Equal(*lost.WorkerLostAt) || rec.RetryAt == nil {
						t.Errorf("the recovered job's final record lost the report: worker_lost_at %v, retry_at %v", rec.WorkerLostAt, rec.RetryAt)
					}
				} else if rec.WorkerLostAt != nil || rec.RetryAt != nil {
					t.Errorf("the job of the worker left running says its worker was lost: %v, %v", rec.WorkerLostAt, rec.RetryAt)
				}
			}
			t.Logf("the killed worker's job ran again %s after the kill", recovery.Round(100*time.Millisecond))
			if recovery < asynqLease-recoverInterval {
				t.Fatalf("no job was recovered (the latest ran again %s after the kill): the kill missed them", recovery)
			}
			if recovery > bound {
				t.Errorf("the killed worker's job ran again %s after the kill, want within %s (lease %s + recovery interval %s + %s)",
					recovery.Round(100*time.Millisecond), bound, asynqLease, recoverInterval, recoverSlack)
			}
		})
	}
}
