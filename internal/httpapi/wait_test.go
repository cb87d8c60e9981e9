package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testkit"
)

// getJobWaiting is GET /jobs/{id}?wait=..., validated against the contract.
func getJobWaiting(t *testing.T, c *apitest.Client, ctx context.Context, id, wait string) (*apitest.Response, error) {
	t.Helper()
	path := "/jobs/" + id
	if wait != "" {
		path += "?wait=" + wait
	}
	req := c.NewRequest(http.MethodGet, path, keyRead, nil).WithContext(ctx)
	return c.TryDo(req)
}

// untilWaiting waits until the server holds n long polls.
func (h *harness) untilWaiting(t *testing.T, n int) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, func() bool { return h.waiters.Len() == n },
		"%s waits held, want %d", func() string { return strconv.Itoa(h.waiters.Len()) }, n)
}

// TestJobWait covers the long poll of getJob in process mode: it answers when the job
// finishes (a success or a cancel) rather than at the end of the wait, answers the
// unfinished record when the wait runs out, answers at once with wait=0, lets go of a
// client that left, ends at drain, and refuses a wait out of range.
func TestJobWait(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, func(s *setup) {
		s.workers = 4
		s.sources = append(s.sources, testModel("gate", blocking(release)))
	})
	type answer struct {
		resp    *apitest.Response
		err     error
		elapsed time.Duration
	}
	wait := func(ctx context.Context, id, w string) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			start := time.Now()
			resp, err := getJobWaiting(t, h.c, ctx, id, w)
			ch <- answer{resp, err, time.Since(start)}
		}()
		return ch
	}
	record := func(t *testing.T, a answer) jobRecord {
		t.Helper()
		if a.err != nil || a.resp.Status != http.StatusOK {
			t.Fatalf("wait: %v %+v", a.err, a.resp)
		}
		var rec jobRecord
		a.resp.JSON(t, &rec)
		return rec
	}

	t.Run("answers when the job finishes", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"gate","data":1}`)
		got := wait(context.Background(), id, "30")
		h.untilWaiting(t, 1)
		checkSeries(t, scrape(t, h), []series{{"inferd_job_waits", nil, 1}})
		release <- struct{}{}
		a := <-got
		if rec := record(t, a); rec.Status != "succeeded" {
			t.Fatalf("record %+v", rec)
		}
		h.untilWaiting(t, 0)
		checkSeries(t, scrape(t, h), []series{{"inferd_job_waits", nil, 0}})
		// Far below the 30 s asked for: the finish woke the wait.
		if a.elapsed > 20*time.Second {
			t.Errorf("the wait took %s", a.elapsed)
		}
		h.untilWaiting(t, 0)
	})
	t.Run("a finished job answers at once", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"echo","data":2}`)
		waitFinal(t, h.c, id)
		if rec := record(t, <-wait(context.Background(), id, "30")); rec.Status != "succeeded" {
			t.Fatalf("record %+v", rec)
		}
	})
	t.Run("runs out with the unfinished record", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"gate","data":3}`)
		a := <-wait(context.Background(), id, "0.2")
		if rec := record(t, a); rec.Status != "pending" && rec.Status != "running" {
			t.Fatalf("record %+v", rec)
		}
		if a.elapsed < 200*time.Millisecond {
			t.Errorf("answered after %s, before the wait ran out", a.elapsed)
		}
		release <- struct{}{}
		waitFinal(t, h.c, id)
	})
	t.Run("wait=0 answers at once", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"gate","data":4}`)
		for _, w := range []string{"0", ""} {
			if rec := record(t, <-wait(context.Background(), id, w)); rec.Status != "pending" && rec.Status != "running" {
				t.Fatalf("wait=%q: record %+v", w, rec)
			}
		}
		// An empty wait= is no wait, as the contract's validator reads the query.
		var rec struct{ Status string }
		if resp := h.c.Get("/jobs/"+id+"?wait=", keyRead); resp.Status != http.StatusOK {
			t.Fatalf("wait=: %d %s", resp.Status, resp.Body)
		} else if resp.JSON(t, &rec); rec.Status != "pending" && rec.Status != "running" {
			t.Fatalf("wait=: record %s", resp.Body)
		}
		release <- struct{}{}
		waitFinal(t, h.c, id)
	})
	t.Run("a cancel wakes the wait", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"gate","data":5}`)
		got := wait(context.Background(), id, "30")
		h.untilWaiting(t, 1)
		if resp := h.c.Do(h.c.NewRequest(http.MethodDelete, "/predict/async/"+id, keyPredict, nil)); resp.Status != http.StatusOK {
			t.Fatalf("cancel: %d %s", resp.Status, resp.Body)
		}
		if rec := record(t, <-got); rec.Status != "cancelled" {
			t.Fatalf("record %+v", rec)
		}
	})
	t.Run("a client that leaves ends its wait", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"gate","data":6}`)
		ctx, cancel := context.WithCancel(context.Background())
		got := wait(ctx, id, "30")
		h.untilWaiting(t, 1)
		cancel()
		if a := <-got; a.err == nil {
			t.Fatalf("the request outlived its context: %+v", a.resp)
		}
		h.untilWaiting(t, 0)
		release <- struct{}{}
		waitFinal(t, h.c, id)
	})
	t.Run("out of range", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"echo","data":7}`)
		for w, detail := range map[string]string{
			"31": `query parameter "wait"`, "-1": `query parameter "wait": number must be at least 0`,
			"soon": `query parameter "wait": "soon" is not a number`, "1e9": `query parameter "wait"`,
			"1e999": `query parameter "wait": "1e999" is out of range`,
			"NaN":   `query parameter "wait"`, "Inf": `query parameter "wait"`,
		} {
			resp := h.c.Get("/jobs/"+id+"?wait="+w, keyRead)
			if resp.Status != http.StatusBadRequest || resp.Problem(t).Code != "invalid_request" || !strings.Contains(resp.Problem(t).Detail, detail) {
				t.Errorf("wait=%s: %d %s, want a detail with %s", w, resp.Status, resp.Body, detail)
			}
		}
	})
	// Last: a drained server answers every wait at once from then on.
	t.Run("drain ends waits", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async", `{"model":"gate","data":8}`)
		got := wait(context.Background(), id, "30")
		h.untilWaiting(t, 1)
		h.srv.Drain()
		a := <-got
		if rec := record(t, a); rec.Status != "pending" && rec.Status != "running" {
			t.Fatalf("record %+v", rec)
		}
		if a.elapsed > 20*time.Second {
			t.Errorf("the wait took %s", a.elapsed)
		}
		release <- struct{}{}
		waitFinal(t, h.c, id)
	})
}
