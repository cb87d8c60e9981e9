package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

// input is a job input of about 10 KB.
var input = json.RawMessage(`"` + strings.Repeat("x", 10_000) + `"`)

// costOf is what rec costs its owner's budget, as both stores count it.
func costOf(t *testing.T, rec job.Record) int64 {
	t.Helper()
	b, err := job.EncodeJSON(rec)
	if err != nil {
		t.Fatal(err)
	}
	return job.RecordCost(len(b))
}

// checkBudget compares an owner's budget in Redis with its records: every member is
// a record that exists, costs what its stored length costs and is of its kind, and
// the sums are the members'. It returns the sum held.
func checkBudget(t *testing.T, rc *redis.Client, prefix, bytesPrefix, owner string) int64 {
	t.Helper()
	ctx := context.Background()
	members, err := rc.ZRange(ctx, bytesPrefix+owner, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var held, open int64
	for _, m := range members {
		c, id, ok := strings.Cut(m[1:], ":")
		cost, err := strconv.ParseInt(c, 10, 64)
		if !ok || err != nil {
			t.Fatalf("member %q", m)
		}
		b, err := rc.Get(ctx, prefix+id).Bytes()
		if err != nil {
			t.Errorf("member %q: its record: %v", m, err)
			continue
		}
		var rec job.Record
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		if want := job.RecordCost(len(b)); cost != want {
			t.Errorf("member %q: the record of %d bytes costs %d", m, len(b), want)
		}
		if final := m[0] == 'f'; final != rec.Status.Final() {
			t.Errorf("member %q: the record is %s", m, rec.Status)
		}
		held += cost
		if m[0] == 'o' {
			open += cost
		}
	}
	sums, err := rc.HGetAll(ctx, bytesPrefix+owner+":sum").Result()
	if err != nil {
		t.Fatal(err)
	}
	if sums["held"] != strconv.FormatInt(held, 10) || sums["open"] != strconv.FormatInt(open, 10) {
		t.Errorf("sums %v; the members add up to held %d, open %d", sums, held, open)
	}
	return held
}

// TestByteBudget (see docs/design.md#job-records-are-bounded-per-key) is memstore's TestByteBudget against Redis, the
// jobs finished by a worker's store (which has no budget of its own) and a record
// deleted by hand, which a check notices within about a second.
func TestByteBudget(t *testing.T) {
	skipExpiry(t) // its steps build on each other, and three wait for expiries
	const ttl = 4 * time.Second
	srv := redistest.Start(t)
	rc := srv.Client()
	ctx := context.Background()
	opts := redisstore.Options{Prefix: "t:job:", BytesPrefix: "t:bytes:", TTL: ttl}
	newRec := func(id, owner string) job.Record {
		rec := newRecord(id)
		rec.Status, rec.Owner, rec.Input = job.StatusPending, owner, input
		return rec
	}
	pending := costOf(t, newRec("j0", "k1"))
	budget := 3*pending + pending/2 // three jobs, not four
	server := redisstore.New(rc, func() redisstore.Options { o := opts; o.MaxBytesPerOwner = budget; return o }())
	worker := redisstore.New(srv.Client(), opts)
	create := func(id, owner string) error { return server.Create(ctx, newRec(id, owner)) }
	refused := func(t *testing.T, id string, lo, hi time.Duration) {
		t.Helper()
		err := create(id, "k1")
		var ble *job.BytesLimitError
		if !errors.As(err, &ble) {
			t.Fatalf("%s over the budget: %v, want a BytesLimitError", id, err)
		}
		if ble.RetryAfter < lo || ble.RetryAfter > hi || ble.Budget != budget || ble.Cost != pending {
			t.Errorf("refusal %+v, want RetryAfter from %s to %s", ble, lo, hi)
		}
		if _, err := server.Get(ctx, id); !errors.Is(err, job.ErrNotFound) {
			t.Fatalf("the refused job was recorded: %v", err)
		}
	}
	finish := func(t *testing.T, id string, result json.RawMessage) {
		t.Helper()
		for _, st := range []job.Status{job.StatusRunning, job.StatusSucceeded} {
			if _, err := worker.Update(ctx, id, func(r *job.Record) error {
				r.Status = st
				if st.Final() {
					r.FinishedAt, r.Input, r.Result = time.Now(), nil, result
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	gone := func(t *testing.T, id string) {
		t.Helper()
		testkit.Eventually(t, 10*time.Second, func() bool {
			_, err := server.Get(ctx, id)
			return errors.Is(err, job.ErrNotFound)
		}, "%s outlived its TTL", id)
	}

	t.Run("unfinished inputs fill it", func(t *testing.T) {
		for i := range 3 {
			if err := create(fmt.Sprint("j", i), "k1"); err != nil {
				t.Fatalf("job %d: %v", i, err)
			}
		}
		refused(t, "over", time.Second, time.Second)
		checkBudget(t, rc, opts.Prefix, opts.BytesPrefix, "k1")
	})
	t.Run("other keys and no key are not counted", func(t *testing.T) {
		if err := create("other", "k2"); err != nil {
			t.Fatal(err)
		}
		if err := create("keyless", ""); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("results count until they expire", func(t *testing.T) {
		// Apart, so that the first expires well before the others.
		finish(t, "j0", input)
		time.Sleep(ttl / 2) // Redis's own clock runs the TTLs: j0's is to end half a TTL before the others'
		finish(t, "j1", input)
		finish(t, "j2", input)
		checkBudget(t, rc, opts.Prefix, opts.BytesPrefix, "k1")
		refused(t, "over", time.Second, ttl)
		gone(t, "j0")
		if err := create("j3", "k1"); err != nil {
			t.Fatalf("after the first record expired: %v", err)
		}
		refused(t, "over", time.Second, time.Second) // j3 is unfinished
		checkBudget(t, rc, opts.Prefix, opts.BytesPrefix, "k1")
	})
	t.Run("a smaller result frees bytes", func(t *testing.T) {
		finish(t, "j3", json.RawMessage(`1`))
		if err := create("j4", "k1"); err != nil {
			t.Fatalf("after a job finished with a small result: %v", err)
		}
		checkBudget(t, rc, opts.Prefix, opts.BytesPrefix, "k1")
	})
	t.Run("too large alone", func(t *testing.T) {
		rec := newRec("huge", "k2")
		rec.Input = json.RawMessage(`"` + strings.Repeat("y", int(budget)) + `"`)
		if err := server.Create(ctx, rec); !errors.Is(err, job.ErrJobTooLarge) {
			t.Fatalf("a record larger than the budget: %v, want ErrJobTooLarge", err)
		}
	})
	t.Run("a record deleted by hand", func(t *testing.T) {
		// Fill the budget with unfinished jobs, which do not expire within the test.
		for _, id := range []string{"j1", "j2"} {
			gone(t, id)
		}
		for _, id := range []string{"j5", "j6"} {
			if err := create(id, "k1"); err != nil {
				t.Fatal(err)
			}
		}
		refused(t, "over", time.Second, time.Second)
		if err := rc.Del(ctx, opts.Prefix+"j6").Err(); err != nil {
			t.Fatal(err)
		}
		var err error
		testkit.Eventually(t, 5*time.Second, func() bool {
			if err = create("after", "k1"); err != nil && !errors.Is(err, job.ErrJobBytesLimit) {
				t.Fatalf("after a record was deleted: %v", err)
			}
			return err == nil
		}, "after a record was deleted: %s", func() string { return fmt.Sprint(err) })
		checkBudget(t, rc, opts.Prefix, opts.BytesPrefix, "k1")
	})
	t.Run("the budget's keys expire with the records", func(t *testing.T) {
		const maxAge = time.Second
		s := redisstore.New(rc, redisstore.Options{Prefix: "t2:", BytesPrefix: "t2:bytes:", MaxAge: maxAge, MaxBytesPerOwner: budget})
		if err := s.Create(ctx, newRec("a", "k")); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"t2:bytes:k", "t2:bytes:k:sum"} {
			if d := rc.PTTL(ctx, k).Val(); d <= 0 || d > maxAge {
				t.Errorf("%s expires in %s, want with the record, within %s", k, d, maxAge)
			}
		}
		testkit.Eventually(t, 10*time.Second, func() bool { return rc.Exists(ctx, "t2:bytes:k", "t2:bytes:k:sum").Val() == 0 },
			"the budget's keys outlived the records they count")
	})
}

// TestByteBudgetIsAtomic: concurrent submissions of one key, from separate stores as
// from separate servers, never get past the budget together.
func TestByteBudgetIsAtomic(t *testing.T) {
	const (
		fit     = 10
		writers = 40
	)
	srv := redistest.Start(t)
	ctx := context.Background()
	rec := newRecord("c")
	rec.Owner, rec.Input = "k", input
	budget := fit*costOf(t, rec) + costOf(t, rec)/2
	var created, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range writers {
		s := redisstore.New(srv.Client(), redisstore.Options{MaxBytesPerOwner: budget})
		wg.Go(func() {
			r := rec
			r.ID = fmt.Sprintf("c%02d", i) // same length: same cost
			err := s.Create(ctx, r)
			switch {
			case err == nil:
				created.Add(1)
			case errors.Is(err, job.ErrJobBytesLimit):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if created.Load() != fit || refused.Load() != writers-fit {
		t.Fatalf("created %d and refused %d of %d, want %d created", created.Load(), refused.Load(), writers, fit)
	}
}

// skipExpiry skips, with -short, a test that waits for Redis to expire keys or for a
// check that runs once a second: seconds of real time. TestByteBudgetIsAtomic and
// TestRecordCostMatchesLua still run.
func skipExpiry(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("waits seconds of real time for Redis to expire keys; runs without -short (make test)")
	}
}
