package queuetest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFinishedJobHoldsNoInput: a 1 MB async echo of '<' characters, through a server
// and a worker on Redis (see docs/design.md#job-records-are-bounded-per-key). Once it has finished, its Redis record
// holds the result alone, written as sent (no \u003c escapes), and every answer that
// carries it is about 1 MB, not 6.
func TestFinishedJobHoldsNoInput(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	s := c.startServer("MAX_REQUEST_BYTES=2097152")
	c.startWorker()

	text := strings.Repeat("<&>", 1<<20/3)                          // about 1 MB, every byte escaped by json.Marshal
	body := `{"model":"echo","version":"v1","data":"` + text + `"}` // sent as is, unescaped
	resp := s.api.Post("/predict/async", devKey, body)
	var sub struct {
		JobID string `json:"job_id"`
	}
	if resp.Status != http.StatusOK {
		t.Fatalf("submit: %d %.300s", resp.Status, resp.Body)
	}
	resp.JSON(t, &sub)
	id := sub.JobID
	s.waitStatus(t, id, "succeeded", 30*time.Second)

	rc := c.redis.Client()
	ctx := context.Background()
	keys, err := rc.Keys(ctx, "*"+id+"*").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("the job's record is not in Redis: %v %v", keys, err)
	}
	var usage int64
	for _, k := range keys {
		if rc.Type(ctx, k).Val() != "string" {
			continue
		}
		n, err := rc.MemoryUsage(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		usage += n
	}
	t.Logf("Redis MEMORY USAGE of the finished record: %d bytes for a %d-byte input", usage, len(text))
	if max := int64(len(text)) * 3 / 2; usage > max {
		t.Errorf("the finished record takes %d bytes of Redis, want at most %d (the result, once)", usage, max)
	}

	for _, path := range []string{"/predict/async/" + id, "/jobs/" + id} {
		resp := s.api.Do(s.api.NewRequest(http.MethodGet, path, devKey, nil))
		var rec struct {
			Result string `json:"result"`
		}
		if err := json.Unmarshal(resp.Body, &rec); err != nil || rec.Result != text {
			t.Fatalf("GET %s does not return the input: %v", path, err)
		}
		if strings.Contains(string(resp.Body), `\u003c`) || len(resp.Body) > len(text)+1024 {
			t.Errorf("GET %s: %d bytes for a %d-byte result (escaped: %v)", path, len(resp.Body), len(text), strings.Contains(string(resp.Body), `\u003c`))
		}
	}
}
