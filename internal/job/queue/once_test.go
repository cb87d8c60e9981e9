package queue

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
)

// TestIdempotentSubmit: a submission with an idempotency key is one round trip, new or
// repeated; a repeat answers the first job and writes nothing, even for a key at its
// cap; another body is refused. Through the Submitter (one script), the plain Runner
// (the store's script, then the task) and a Redis Cluster with four shards (the key
// and the job in one slot).
func TestIdempotentSubmit(t *testing.T) {
	ctx := context.Background()
	envs := []struct {
		name  string
		env   func(t *testing.T) *env
		plain bool
	}{
		{"submitter", func(t *testing.T) *env { return newEnv(t) }, false},
		{"plain runner", func(t *testing.T) *env { return newEnv(t) }, true},
		{"cluster of four shards", func(t *testing.T) *env { return newClusterEnv(t, 4) }, false},
	}
	for _, tt := range envs {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.env(t)
			e.store = redisstore.New(e.rc, redisstore.Options{MaxPerOwner: 1, Shards: e.tasks.Sharding()})
			e.svc = &job.Service{Store: e.store, Submitter: NewSubmitter(e.runner, e.store)}
			if tt.plain {
				e.svc.Submitter = job.Steps{Store: e.store, Runner: e.runner}
			}
			submitAs := func(owner, key, data string) (job.Record, bool, error) {
				return e.svc.SubmitWith(ctx, job.Submission{Owner: owner, Model: "echo", Version: "v1", Input: json.RawMessage(data),
					Idempotency: &job.Idempotency{Key: key, Fingerprint: data}})
			}
			submit := func(key, data string) (job.Record, bool, error) { return submitAs("k", key, data) }
			// Connections made and scripts loaded, of every shard, before counting.
			for i := range 16 {
				if _, _, err := submitAs("", string(rune('a'+i)), "0"); err != nil {
					t.Fatal(err)
				}
			}
			rt := &redistest.RoundTrips{}
			e.rc.AddHook(rt)
			first, replayed, err := submit("a", "1")
			if err != nil || replayed {
				t.Fatalf("first: %v (replayed %v)", err, replayed)
			}
			if !tt.plain && rt.Count() != 1 {
				t.Errorf("a new idempotent submission took %d round trips, want 1", rt.Count())
			}
			for range 3 {
				rt.Reset()
				again, replayed, err := submit("a", "1")
				if err != nil || !replayed || again.ID != first.ID {
					t.Fatalf("repeat: %v, job %s replayed %v; want %s", err, again.ID, replayed, first.ID)
				}
				if rt.Count() != 1 {
					t.Errorf("a repeat took %d round trips, want 1", rt.Count())
				}
			}
			if _, _, err := submit("a", "2"); !errors.Is(err, job.ErrIdempotencyMismatch) {
				t.Errorf("another body: %v, want ErrIdempotencyMismatch", err)
			}
			if _, _, err := submit("b", "1"); e.tasks.Shards <= 1 && !errors.Is(err, job.ErrJobLimit) {
				// With shards, each holds a key to its share of the cap, rounded up.
				t.Errorf("a new key at the cap of one: %v, want ErrJobLimit", err)
			}
			if rec, err := e.store.Get(ctx, first.ID); err != nil || rec.Status != job.StatusPending {
				t.Errorf("the first job: %v, %+v", err, rec)
			}
			e.startWorker(t, &echo{}, WorkerOptions{})
			e.waitStatus(t, first.ID, job.StatusSucceeded, 10*time.Second)
		})
	}
}
