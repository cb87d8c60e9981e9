package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

func newRecord(id string) job.Record {
	return job.Record{
		ID:        id,
		Status:    job.StatusCreated,
		Model:     "echo",
		Version:   "v1",
		Input:     json.RawMessage(`{"x":1}`),
		CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC),
	}
}

func TestCRUD(t *testing.T) {
	srv := redistest.Start(t)
	s := redisstore.New(srv.Client(), redisstore.Options{})
	ctx := context.Background()

	rec := newRecord("a")
	if err := s.Create(ctx, rec); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := s.Create(ctx, rec); err == nil {
		t.Fatal("a second Create of the same id succeeded")
	}
	got, err := s.Get(ctx, "a")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.ID != rec.ID || got.Status != rec.Status || !got.CreatedAt.Equal(rec.CreatedAt) || string(got.Input) != string(rec.Input) {
		t.Fatalf("Get = %+v, want %+v", got, rec)
	}

	errStop := errors.New("stop")
	tests := []struct {
		name    string
		id      string
		fn      func(*job.Record) error
		wantErr error
		want    job.Status
	}{
		{"moves forward", "a", func(r *job.Record) error { r.Status = job.StatusPending; return nil }, nil, job.StatusPending},
		{"fn error writes nothing", "a", func(r *job.Record) error { r.Status = job.StatusFailed; return errStop }, errStop, job.StatusPending},
		{"missing id", "nope", func(*job.Record) error { return nil }, job.ErrNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Update(ctx, tt.id, tt.fn)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Update error = %v, want %v", err, tt.wantErr)
			}
			if tt.want == "" {
				return
			}
			got, err := s.Get(ctx, tt.id)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if got.Status != tt.want {
				t.Fatalf("status = %s, want %s", got.Status, tt.want)
			}
		})
	}

	if _, err := s.Get(ctx, "nope"); !errors.Is(err, job.ErrNotFound) {
		t.Fatalf("Get of a missing id = %v, want ErrNotFound", err)
	}
}

func TestUpdateFrom(t *testing.T) {
	srv := redistest.Start(t)
	rc := srv.Client()
	rt := &redistest.RoundTrips{}
	rc.AddHook(rt)
	s := redisstore.New(rc, redisstore.Options{Prefix: "test:", TTL: time.Hour})
	other := redisstore.New(srv.Client(), redisstore.Options{Prefix: "test:", TTL: time.Hour})
	ctx := context.Background()
	// Load the script, so that every case counts the steady state.
	warm := newRecord("warm")
	if err := s.Create(ctx, warm); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateFrom(ctx, warm, func(*job.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		// meddle, when set, changes the stored record after the caller took prev.
		meddle    func(*job.Record) error
		to        job.Status
		wantTrips int64
		wantErr   string // kept from another writer's change
		// wantTTL is the expiry the record must have after the write: the store's TTL
		// once the job finished, its MaxAge from creation until then.
		wantTTL time.Duration
	}{
		{name: "prev is current: one write, no read", to: job.StatusRunning, wantTrips: 1, wantTTL: job.DefaultMaxAge},
		{name: "prev is stale: fn sees the current record", meddle: func(r *job.Record) error { r.Error = "noted"; return nil },
			to: job.StatusRunning, wantTrips: 3, wantErr: "noted", wantTTL: job.DefaultMaxAge},
		{name: "finishing sets the expiry", to: job.StatusSucceeded, wantTrips: 1, wantTTL: time.Hour},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := newRecord("j" + strconv.Itoa(i))
			if err := s.Create(ctx, prev); err != nil {
				t.Fatal(err)
			}
			if tt.meddle != nil {
				if _, err := other.Update(ctx, prev.ID, tt.meddle); err != nil {
					t.Fatal(err)
				}
			}
			rt.Reset()
			got, err := s.UpdateFrom(ctx, prev, func(r *job.Record) error { r.Status = tt.to; return nil })
			if err != nil {
				t.Fatalf("UpdateFrom: %v", err)
			}
			if n := rt.Count(); n != tt.wantTrips {
				t.Errorf("round trips = %d, want %d", n, tt.wantTrips)
			}
			stored, err := s.Get(ctx, prev.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []job.Record{got, stored} {
				if r.Status != tt.to || r.Error != tt.wantErr || string(r.Input) != string(prev.Input) {
					t.Errorf("record = %+v, want status %s and error %q", r, tt.to, tt.wantErr)
				}
			}
			d, err := rc.PTTL(ctx, "test:"+prev.ID).Result()
			if err != nil {
				t.Fatal(err)
			}
			if d > tt.wantTTL || d < tt.wantTTL-time.Minute {
				t.Errorf("TTL = %s, want about %s", d, tt.wantTTL)
			}
		})
	}

	t.Run("missing record", func(t *testing.T) {
		_, err := s.UpdateFrom(ctx, newRecord("nope"), func(*job.Record) error { return nil })
		if !errors.Is(err, job.ErrNotFound) {
			t.Fatalf("UpdateFrom of a missing record = %v, want ErrNotFound", err)
		}
	})
}

func TestUpdateIsAtomicUnderConcurrency(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	const writers, each = 16, 25
	// Writers in separate stores with separate clients stand for separate processes.
	stores := make([]*redisstore.Store, writers)
	for i := range stores {
		stores[i] = redisstore.New(srv.Client(), redisstore.Options{})
	}
	if err := stores[0].Create(ctx, newRecord("n")); err != nil {
		t.Fatal(err)
	}
	incr := func(r *job.Record) error {
		n := 0
		if len(r.Result) > 0 {
			if err := json.Unmarshal(r.Result, &n); err != nil {
				return err
			}
		}
		r.Result = json.RawMessage(strconv.Itoa(n + 1))
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for i, s := range stores {
		// Half the writers hold the record they last wrote and write from it, which
		// other writers have mostly made stale by then.
		from := i%2 == 1
		wg.Go(func() {
			last := newRecord("n")
			for range each {
				var err error
				if from {
					last, err = s.UpdateFrom(ctx, last, incr)
				} else {
					_, err = s.Update(ctx, "n", incr)
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update: %v", err)
	}
	got, err := stores[0].Get(ctx, "n")
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(writers * each); string(got.Result) != want {
		t.Fatalf("counter = %s, want %s: an update was lost", got.Result, want)
	}
}

func TestRecordsExpire(t *testing.T) {
	srv := redistest.Start(t)
	rc := srv.Client()
	ctx := context.Background()
	const (
		ttl    = time.Hour
		maxAge = 3 * time.Hour
	)
	s := redisstore.New(rc, redisstore.Options{Prefix: "test:", TTL: ttl, MaxAge: maxAge})

	if err := s.Create(ctx, newRecord("j")); err != nil {
		t.Fatal(err)
	}
	ttlOf := func() time.Duration {
		t.Helper()
		d, err := rc.PTTL(ctx, "test:j").Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	move := func(to job.Status) {
		t.Helper()
		if _, err := s.Update(ctx, "j", func(r *job.Record) error { r.Status = to; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if d := ttlOf(); d <= maxAge-time.Minute || d > maxAge {
		t.Fatalf("a new record has TTL %s, want about the max age %s", d, maxAge)
	}
	if err := rc.PExpire(ctx, "test:j", 2*time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	move(job.StatusRunning)
	if d := ttlOf(); d <= 2*time.Hour-time.Minute || d > 2*time.Hour {
		t.Fatalf("a running record has TTL %s, want the expiry it got at creation kept", d)
	}
	move(job.StatusSucceeded)
	if d := ttlOf(); d <= ttl-time.Minute || d > ttl {
		t.Fatalf("a finished record has TTL %s, want about %s", d, ttl)
	}
	// A later write to a final record keeps the expiry it got when it finished.
	if err := rc.PExpire(ctx, "test:j", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "j", func(r *job.Record) error { r.Error = "x"; return nil }); err != nil {
		t.Fatal(err)
	}
	if d := ttlOf(); d > time.Minute || d <= 0 {
		t.Fatalf("after a second write TTL is %s, want the first expiry kept", d)
	}

	short := redisstore.New(rc, redisstore.Options{TTL: 200 * time.Millisecond})
	if err := short.Create(ctx, newRecord("k")); err != nil {
		t.Fatal(err)
	}
	if _, err := short.Update(ctx, "k", func(r *job.Record) error { r.Status = job.StatusCancelled; return nil }); err != nil {
		t.Fatal(err)
	}
	// A record that never finishes goes MaxAge after its creation.
	young := redisstore.New(rc, redisstore.Options{TTL: time.Hour, MaxAge: 200 * time.Millisecond})
	if err := young.Create(ctx, newRecord("m")); err != nil {
		t.Fatal(err)
	}
	if _, err := young.Update(ctx, "m", func(r *job.Record) error { r.Status = job.StatusRunning; return nil }); err != nil {
		t.Fatal(err)
	}
	// Redis expires keys on its own clock, which a synctest bubble cannot fake: wait
	// for the records to go, bounded well past their 200 ms.
	for _, tt := range []struct {
		what  string
		store *redisstore.Store
		id    string
	}{
		{"Get after the TTL", short, "k"},
		{"Get of an unfinished record after the max age", young, "m"},
	} {
		var err error
		testkit.Eventually(t, 10*time.Second, func() bool {
			_, err = tt.store.Get(ctx, tt.id)
			return errors.Is(err, job.ErrNotFound)
		}, "%s ErrNotFound: %s", tt.what, func() string { return fmt.Sprint(err) })
	}
}

func TestRedisDownIsUnavailable(t *testing.T) {
	if testing.Short() {
		t.Skip("each call waits out go-redis's retries against a stopped Redis; runs without -short (make test)")
	}
	srv := redistest.Start(t)
	s := redisstore.New(srv.Client(), redisstore.Options{})
	ctx := context.Background()
	if err := s.Create(ctx, newRecord("before")); err != nil {
		t.Fatal(err)
	}

	srv.Stop()
	ops := []struct {
		name string
		call func() error
	}{
		{"Create", func() error { return s.Create(ctx, newRecord("x")) }},
		{"Get", func() error { _, err := s.Get(ctx, "before"); return err }},
		{"Update", func() error {
			_, err := s.Update(ctx, "before", func(*job.Record) error { return nil })
			return err
		}},
		{"UpdateFrom", func() error {
			_, err := s.UpdateFrom(ctx, newRecord("before"), func(*job.Record) error { return nil })
			return err
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			if err := op.call(); !errors.Is(err, job.ErrQueueUnavailable) {
				t.Fatalf("%s with Redis down = %v, want ErrQueueUnavailable", op.name, err)
			}
		})
	}

	// The same store carries on once Redis is back (empty: persistence is off).
	srv.Restart()
	if err := s.Create(ctx, newRecord("after")); err != nil {
		t.Fatalf("Create after Redis came back: %v", err)
	}
	if _, err := s.Get(ctx, "after"); err != nil {
		t.Fatalf("Get after Redis came back: %v", err)
	}
}
