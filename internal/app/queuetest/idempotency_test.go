package queuetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/testkit"
)

// TestIdempotentSubmitAcrossServers: two API servers on one Redis. The same key and
// body sent to both at once, 100 times, make one job each time, both answers naming
// it. A server killed while it accepts a submission (held in its replicas' wait) has
// written the job: a duplicate then is 409 with Retry-After, a retry once that passed
// gets the job, which runs. Another body under a used key is 422. Every answer is
// validated against the contract.
func TestIdempotentSubmitAcrossServers(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	a, b := c.startServer(), c.startServer()
	c.startWorker()
	rc := c.redis.Client()
	ctx := context.Background()

	t.Run("at once to two servers", func(t *testing.T) {
		const rounds = 100
		for i := range rounds {
			key := fmt.Sprintf("round-%d", i)
			spec := single("echo", "v1", fmt.Sprintf(`{"round":%d}`, i))
			var ids [2]string
			var errs [2]error
			var wg sync.WaitGroup
			start := make(chan struct{})
			for n, s := range []*server{a, b} {
				wg.Go(func() {
					<-start
					ids[n], errs[n] = s.trySubmitKey(spec, key)
				})
			}
			close(start)
			wg.Wait()
			if errs[0] != nil || errs[1] != nil || ids[0] != ids[1] {
				t.Fatalf("round %d: jobs %q and %q (%v, %v), want one", i, ids[0], ids[1], errs[0], errs[1])
			}
		}
		if n := len(rc.Keys(ctx, redisstore.DefaultPrefix+"*").Val()); n != rounds {
			t.Fatalf("%d job records after %d rounds, want one a round", n, rounds)
		}
	})

	t.Run("another body", func(t *testing.T) {
		resp := a.api.Do(a.keyed(single("echo", "v1", `{"round":"other"}`), "round-0"))
		if p := resp.Problem(t); resp.Status != http.StatusUnprocessableEntity || p.Code != "idempotency_key_reused" {
			t.Fatalf("status %d: %s", resp.Status, resp.Body)
		}
	})

	t.Run("a server killed while it accepts", func(t *testing.T) {
		// No replica answers: the server holds the submission in its wait for one,
		// after the script wrote the job and the key.
		held := c.startServer("QUEUE_MIN_REPLICAS=1", "QUEUE_REPLICA_TIMEOUT=3s")
		spec := single("echo", "v1", `{"killed":true}`)
		answered := make(chan error, 1)
		go func() {
			_, err := held.trySubmitKey(spec, "killed")
			answered <- err
		}()
		var use job.Use
		testkit.Eventually(t, 5*time.Second, func() bool {
			keys := rc.Keys(ctx, redisstore.DefaultOncePrefix+"*").Val()
			for _, k := range keys {
				if u, err := job.DecodeUse(rc.Get(ctx, k).Val()); err == nil && !u.PendingUntil.IsZero() {
					use = u
					return true
				}
			}
			return false
		}, "the held server wrote the idempotency key")
		resp := a.api.Do(a.keyed(spec, "killed"))
		if p := resp.Problem(t); resp.Status != http.StatusConflict || p.Code != "idempotency_key_in_progress" || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("a duplicate while the first is accepted: status %d %s", resp.Status, resp.Body)
		}
		held.Signal(syscall.SIGKILL)
		if err := <-answered; err == nil {
			t.Fatal("the killed server answered")
		}
		var id string
		testkit.Eventually(t, 10*time.Second, func() bool {
			var err error
			id, err = b.trySubmitKey(spec, "killed")
			return err == nil
		}, "a retry gets the job")
		if id != use.JobID {
			t.Fatalf("the retry got job %s, want %s, which the killed server created", id, use.JobID)
		}
		if rec := b.waitStatus(t, id, "succeeded", 10*time.Second); !testkit.SameJSON(rec.Result, spec.want()) {
			t.Fatalf("result %s", rec.Result)
		}
	})
}

// keyed is the request that submits spec with the Idempotency-Key key.
func (s *server) keyed(spec jobSpec, key string) *http.Request {
	req := s.api.NewRequest(http.MethodPost, spec.path(), devKey, spec)
	req.Header.Set("Idempotency-Key", `"`+key+`"`)
	return req
}

// trySubmitKey is trySubmit with an Idempotency-Key.
func (s *server) trySubmitKey(spec jobSpec, key string) (string, error) {
	resp, err := s.api.TryDo(s.keyed(spec, key))
	if err != nil {
		return "", err
	}
	return submittedID(resp)
}

// submittedID is the job id of a submission's 200.
func submittedID(resp *apitest.Response) (string, error) {
	if resp.Status != http.StatusOK {
		return "", fmt.Errorf("submit: status %d: %s", resp.Status, strings.TrimSpace(string(resp.Body)))
	}
	var out struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal(resp.Body, &out); err != nil || out.JobID == "" {
		return "", fmt.Errorf("submit: no job_id in %s (%v)", resp.Body, err)
	}
	return out.JobID, nil
}
