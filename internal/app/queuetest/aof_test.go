package queuetest

import (
	"testing"
	"time"

	"github.com/inferd/inferd/internal/redistest"
)

// TestAOFRestartLosesNoAcceptedJob runs two servers and two workers on a Redis with
// the append-only file on (appendfsync everysec), kills Redis with SIGKILL while jobs
// flow, and starts it again on the same files. Every job a server accepted (answered
// with an id) must still end succeeded with its own result: the record and the task
// were in the file, and the processes reconnect by themselves.
func TestAOFRestartLosesNoAcceptedJob(t *testing.T) {
	skipShort(t) // before its own Redis starts
	t.Parallel()
	const (
		total      = 400
		submitters = 6
		restartAt  = 120 // accepted jobs before the kill
	)
	c := newClusterOn(t, redistest.StartWith(t, redistest.Options{AppendOnly: true}))
	servers := []*server{c.startServer(), c.startServer()}
	c.startWorker()
	c.startWorker()

	var restartedAt time.Time
	f := runFlood(t, servers, total, submitters, restartAt, 40*time.Second, func() {
		// SIGKILL, a second without Redis (submissions get 503, workers lose their
		// connections mid-job), then the same port and directory.
		c.redis.Stop()
		time.Sleep(time.Second) // the outage: redis-server stays down a second
		c.redis.Restart()
		restartedAt = time.Now()
	})
	if t.Failed() {
		t.FailNow()
	}
	if restartedAt.IsZero() {
		t.Fatal("Redis was never restarted")
	}
	o := f.settle(t, servers, 50*time.Second)
	report(t, "Redis restarted with AOF", f, o)
}
