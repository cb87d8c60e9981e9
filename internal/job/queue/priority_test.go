package queue

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// TestPriorityQueues: every priority's job is recorded and queued in one script and
// runs, on one Redis and on a Redis Cluster with four shards, where the high and low
// queues beside a shard's must share its slot (a script over two slots is refused);
// and a job whose deadline has passed is failed unrun, one whose deadline is the zero
// time (0001-01-01T00:00:00Z, which the record keeps through Redis) as well.
func TestPriorityQueues(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  func(testing.TB) *env
	}{
		{"redis", newEnv},
		{"cluster", func(t testing.TB) *env { return newClusterEnv(t, 4) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.env(t)
			ctx := context.Background()
			var ids []string
			for range 4 { // over the shards
				for _, p := range job.Priorities {
					rec, _, err := e.svc.SubmitWith(ctx, job.Submission{Model: "echo", Version: "v1", Input: json.RawMessage(`"` + string(p) + `"`), Priority: p})
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					ids = append(ids, rec.ID)
				}
			}
			var late []string
			for _, d := range []time.Time{time.Now().Add(-time.Second), {}} {
				rec, _, err := e.svc.SubmitWith(ctx, job.Submission{Model: "echo", Version: "v1", Input: json.RawMessage(`1`),
					Priority: job.PriorityHigh, Deadline: &d})
				if err != nil {
					t.Fatal(err)
				}
				late = append(late, rec.ID)
			}
			e.startWorker(t, &echo{}, WorkerOptions{})
			for _, id := range ids {
				e.waitStatus(t, id, job.StatusSucceeded, 10*time.Second)
			}
			for _, id := range late {
				if rec := e.waitStatus(t, id, job.StatusFailed, 10*time.Second); !rec.StartedAt.IsZero() || rec.Deadline == nil {
					t.Errorf("the late job started, or lost its deadline: %+v", rec)
				}
			}
		})
	}
}
