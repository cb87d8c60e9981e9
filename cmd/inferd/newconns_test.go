package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestSIGTERMNewConnectionsAnsweredOrRefused (see docs/design.md#shutdown-loses-no-request) runs the built server
// with clients that open a new connection for every request and never stop, as
// clients that ignore /ready do, and sends SIGTERM. Through the drain and past it,
// every request is either answered in full or its connection is refused
// (ECONNREFUSED: nothing was sent); none is reset, cut off or left unanswered. Half
// of the clients submit jobs: afterwards the jobs in Redis are exactly those whose
// submission was answered, so a client that saw no answer knows no job was created.
func TestSIGTERMNewConnectionsAnsweredOrRefused(t *testing.T) {
	redis := redistest.Start(t)
	p := startInferd(t, "SHUTDOWN_DRAIN=1s", "QUEUE_URL="+redis.URL(), "MAX_JOBS_PER_KEY=0")

	const clients = 16
	var (
		answered, refused atomic.Int64
		mu                sync.Mutex
		failures          []string
		failed            int
		jobs              = map[string]bool{}
	)
	fail := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		failed++
		if len(failures) < 20 {
			failures = append(failures, s)
		}
	}
	var wg sync.WaitGroup
	for i := range clients {
		path := "/predict"
		if i%2 == 1 {
			path = "/predict/async"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &http.Client{
				Transport: apitest.Transport(t, &http.Transport{DisableKeepAlives: true}),
				Timeout:   30 * time.Second,
			}
			for n := 0; ; n++ {
				body := fmt.Sprintf(`{"model":"echo","data":{"client":%d,"n":%d}}`, i, n)
				req, _ := http.NewRequest(http.MethodPost, p.URL+path, strings.NewReader(body))
				req.Header.Set("X-API-Key", "dev-key")
				req.Header.Set("Content-Type", "application/json")
				resp, err := cl.Do(req)
				if errors.Is(err, syscall.ECONNREFUSED) {
					refused.Add(1)
					return
				}
				if err != nil {
					fail(path + ": " + err.Error())
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					fail(path + ": answer cut off: " + err.Error())
					continue
				}
				if resp.StatusCode != http.StatusOK {
					fail(fmt.Sprintf("%s: %d %s", path, resp.StatusCode, b))
					continue
				}
				answered.Add(1)
				if path == "/predict/async" {
					var r struct {
						JobID string `json:"job_id"`
					}
					if err := json.Unmarshal(b, &r); err != nil || r.JobID == "" {
						fail(fmt.Sprintf("%s: no job id in %s", path, b))
						continue
					}
					mu.Lock()
					jobs[r.JobID] = true
					mu.Unlock()
				}
			}
		}()
	}

	testkit.Eventually(t, 30*time.Second, func() bool { return answered.Load() >= 10*clients }, "the load to be answered")
	before := answered.Load()
	p.Signal(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := p.Wait(ctx)
	wg.Wait()
	if err != nil || code != 0 {
		t.Fatalf("exit code %d (%v); logs:\n%s", code, err, p.Logs())
	}
	t.Logf("%d requests answered (%d after SIGTERM), %d refused, %d failed", answered.Load(), answered.Load()-before, refused.Load(), failed)
	if failed != 0 {
		t.Errorf("%d requests failed otherwise than answered or refused:\n%s", failed, strings.Join(failures, "\n"))
	}
	if answered.Load()-before == 0 {
		t.Error("no request was answered after SIGTERM: the drain did not keep serving")
	}

	// The jobs created are exactly those whose submission was answered.
	keys, err := redis.Client().Keys(ctx, "inferd:job:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var unanswered []string
	for _, k := range keys {
		if id := strings.TrimPrefix(k, "inferd:job:"); !jobs[id] {
			unanswered = append(unanswered, id)
		}
	}
	sort.Strings(unanswered)
	if len(keys) != len(jobs) || len(unanswered) != 0 {
		t.Errorf("%d jobs in Redis, %d submissions answered; created but never answered: %v", len(keys), len(jobs), unanswered)
	}
}
