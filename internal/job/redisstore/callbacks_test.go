package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/jobtest"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
)

// TestCallbackLanes runs the stores' test of the callback queue on one Redis, and on
// four shards (each a hash tag of its own, as in Redis Cluster).
func TestCallbackLanes(t *testing.T) {
	srv := redistest.Start(t)
	for _, shards := range []redisstore.Shards{{}, {Queue: "inferd", N: 4, Tagged: true}} {
		t.Run("shards "+shards.Queue, func(t *testing.T) {
			jobtest.CallbackLanes(t, shards.N > 1, func(tb testing.TB) jobtest.Store {
				if err := srv.Client().FlushAll(context.Background()).Err(); err != nil {
					tb.Fatal(err)
				}
				return redisstore.New(srv.Client(), redisstore.Options{Shards: shards})
			})
		})
	}
}

// TestCallbackQueuedByEarlierVersion: a callback in the queue of versions before the
// lanes (one sorted set by job) is claimed, as a key's named "", and its retry moves it
// to its own key's lane; one that is done leaves that queue too.
func TestCallbackQueuedByEarlierVersion(t *testing.T) {
	srv := redistest.Start(t)
	rc := srv.Client()
	ctx := context.Background()
	s := redisstore.New(rc, redisstore.Options{})
	for _, id := range []string{"old-1", "old-2"} {
		jobtest.Finish(t, s, id, "C")
		// As an earlier version queued it.
		if err := rc.ZRem(ctx, redisstore.DefaultCallbacksPrefix+"due:C", id).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.ZAdd(ctx, redisstore.DefaultCallbacksPrefix+"due", redisZ(time.Now(), id)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().Add(time.Second)
	got, err := s.ClaimCallbacks(ctx, job.CallbackClaim{Now: now, Lease: time.Minute, N: 10, Each: 10})
	if err != nil || len(got) != 2 || got[0].Owner != "" || got[1].Owner != "" {
		t.Fatalf("claimed %v (%v), want old-1 and old-2, of the key \"\"", got, err)
	}
	if err := s.RetryCallback(ctx, job.DueCallback{ID: "old-1", Owner: "C"}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.DoneCallback(ctx, job.DueCallback{ID: "old-2", Owner: "C"}); err != nil {
		t.Fatal(err)
	}
	if n := rc.ZCard(ctx, redisstore.DefaultCallbacksPrefix+"due").Val(); n != 0 {
		t.Errorf("the earlier versions' queue still holds %d", n)
	}
	got, err = s.ClaimCallbacks(ctx, job.CallbackClaim{Now: now, Lease: time.Minute, N: 10, Each: 10})
	if err != nil || len(got) != 1 || got[0] != (job.DueCallback{ID: "old-1", Owner: "C"}) {
		t.Errorf("then claimed %v (%v), want old-1 in C's lane", got, err)
	}
}

func redisZ(at time.Time, id string) redis.Z {
	return redis.Z{Score: float64(at.UnixMilli()), Member: id}
}
