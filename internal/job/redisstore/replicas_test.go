package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/queue"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
)

// TestReplicasHoldTheSubmission submits through a job.Service whose Replicas wait for
// a primary's replica: with one replica asked for, the job is accepted and its record
// and task are on the replica when Submit returns; with more replicas asked for than
// exist, Submit fails with ErrQueueUnavailable after the timeout and the record says
// failed, so no worker runs it.
func TestReplicasHoldTheSubmission(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a replica and waits for it to sync; runs without -short (make test)")
	}
	primary := redistest.Start(t)
	replica := redistest.StartWith(t, redistest.Options{ReplicaOf: primary})
	primary.WaitReplicas(1)
	rc := primary.Client()
	store := redisstore.New(rc, redisstore.Options{})
	runner := queue.NewRunner(rc, queue.TaskOptions{})
	ctx := context.Background()

	tests := []struct {
		name    string
		n       int
		timeout time.Duration
		wantErr bool
	}{
		{"the one replica", 1, time.Second, false},
		{"more replicas than exist", 2, 300 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &job.Service{Store: store, Submitter: job.Steps{Store: store, Runner: runner}, Replicas: redisstore.NewReplicas(rc, redisstore.ReplicasOptions{Count: tt.n, Timeout: tt.timeout})}
			start := time.Now()
			rec, err := svc.Submit(ctx, "echo", "v1", false, json.RawMessage(`{"x":1}`))
			took := time.Since(start)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Submit: %v", err)
				}
				// Read on the replica, without waiting: it must have both already.
				rk := replica.Client()
				if n, err := rk.Exists(ctx, redisstore.DefaultPrefix+rec.ID).Result(); err != nil || n != 1 {
					t.Errorf("the replica lacks the record when Submit returned (%d, %v)", n, err)
				}
				keys, err := rk.Keys(ctx, "asynq:*:t:*").Result()
				if err != nil || len(keys) == 0 {
					t.Errorf("the replica lacks the task when Submit returned (%v, %v)", keys, err)
				}
				return
			}
			if !errors.Is(err, job.ErrQueueUnavailable) {
				t.Fatalf("Submit = %v, want ErrQueueUnavailable", err)
			}
			if took < tt.timeout {
				t.Errorf("Submit failed after %s, before the %s timeout", took, tt.timeout)
			}
			// The id was never returned; find the record among the store's keys.
			keys, err := rc.Keys(ctx, redisstore.DefaultPrefix+"*").Result()
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for _, k := range keys {
				r, err := store.Get(ctx, k[len(redisstore.DefaultPrefix):])
				if err == nil && r.Status == job.StatusFailed {
					failed++
				}
			}
			if failed != 1 {
				t.Errorf("%d failed records, want the refused job's", failed)
			}
		})
	}
}
