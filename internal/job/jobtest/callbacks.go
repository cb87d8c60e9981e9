package jobtest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// Store is a job store with its queue of callbacks.
type Store interface {
	job.Store
	job.CallbackQueue
}

// Finish records a job of owner with a callback, and finishes it through the store's
// own write, which queues the callback.
func Finish(tb testing.TB, s job.Store, id, owner string) {
	tb.Helper()
	ctx := context.Background()
	rec := job.Record{ID: id, Owner: owner, Status: job.StatusPending, Model: "echo", Version: "v1", Input: json.RawMessage(`1`),
		CreatedAt: time.Now(), Callback: job.Callback{URL: "http://hooks.example.com/" + owner, State: job.CallbackPending}}
	if err := s.Create(ctx, rec); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Update(ctx, id, func(r *job.Record) error {
		r.Status, r.FinishedAt, r.Input = job.StatusSucceeded, time.Now(), nil
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// CallbackLanes: a claim takes the keys in turn, within its caps, so that one key's
// many queued callbacks keep no other key's waiting: 120 of key A, then 5 of key B,
// and a claim that lets A have none gets B's 5 at once; one that lets each have 3
// gets 3 of each; one of 10 gets A's and B's turn about (with sharded true, a store
// whose queue is in parts that each take turns of their own, at least one of B's). A
// claimed callback is leased; RetryCallback and DoneCallback move it and take it off.
func CallbackLanes(t *testing.T, sharded bool, newStore func(testing.TB) Store) {
	ctx := context.Background()
	fill := func(tb testing.TB, a, b int) Store {
		s := newStore(tb)
		for i := range a {
			Finish(tb, s, fmt.Sprintf("a-%03d", i), "A")
		}
		for i := range b {
			Finish(tb, s, fmt.Sprintf("b-%03d", i), "B")
		}
		return s
	}
	claim := func(tb testing.TB, s Store, c job.CallbackClaim) map[string]int {
		tb.Helper()
		if c.Now.IsZero() {
			c.Now = time.Now().Add(time.Second)
		}
		if c.Lease == 0 {
			c.Lease = time.Minute
		}
		got, err := s.ClaimCallbacks(ctx, c)
		if err != nil {
			tb.Fatal(err)
		}
		by := map[string]int{}
		seen := map[string]bool{}
		for _, cb := range got {
			if seen[cb.ID] {
				tb.Errorf("%s claimed twice", cb.ID)
			}
			seen[cb.ID] = true
			if want := map[byte]string{'a': "A", 'b': "B"}[cb.ID[0]]; cb.Owner != want {
				tb.Errorf("%s claimed as key %q's, want %q", cb.ID, cb.Owner, want)
			}
			by[cb.Owner]++
		}
		return by
	}

	t.Run("a key capped at none", func(t *testing.T) {
		s := fill(t, 120, 5)
		if got := claim(t, s, job.CallbackClaim{N: 16, Caps: map[string]int{"A": 0}, Each: 8}); got["A"] != 0 || got["B"] != 5 {
			t.Errorf("claimed %v, want B's 5 and none of A's", got)
		}
	})
	t.Run("each capped", func(t *testing.T) {
		s := fill(t, 120, 5)
		if got := claim(t, s, job.CallbackClaim{N: 100, Each: 3}); got["A"] != 3 || got["B"] != 3 {
			t.Errorf("claimed %v, want 3 of each", got)
		}
	})
	t.Run("turn about", func(t *testing.T) {
		s := fill(t, 120, 5)
		got := claim(t, s, job.CallbackClaim{N: 10, Each: 100})
		if got["A"]+got["B"] != 10 || got["B"] < 1 || !sharded && got["B"] != 5 {
			t.Errorf("claimed %v, want 5 of each", got)
		}
		// The claimed are leased: the next claim has the rest.
		if then := claim(t, s, job.CallbackClaim{N: 200, Each: 200}); then["A"] != 120-got["A"] || then["B"] != 5-got["B"] {
			t.Errorf("then claimed %v, want the other %d of A's and %d of B's", then, 120-got["A"], 5-got["B"])
		}
		if got := claim(t, s, job.CallbackClaim{N: 200, Each: 200}); len(got) != 0 {
			t.Errorf("then claimed %v, want none: all are leased", got)
		}
		// Leases end.
		if got := claim(t, s, job.CallbackClaim{Now: time.Now().Add(2 * time.Minute), N: 200, Each: 200}); got["A"] != 120 || got["B"] != 5 {
			t.Errorf("after the leases claimed %v, want all", got)
		}
	})
	t.Run("retry and done", func(t *testing.T) {
		s := fill(t, 2, 1)
		now := time.Now().Add(time.Second)
		if got := claim(t, s, job.CallbackClaim{Now: now, N: 10, Each: 10}); got["A"] != 2 || got["B"] != 1 {
			t.Fatalf("claimed %v, want all 3", got)
		}
		if err := s.RetryCallback(ctx, job.DueCallback{ID: "a-000", Owner: "A"}, now); err != nil {
			t.Fatal(err)
		}
		if err := s.DoneCallback(ctx, job.DueCallback{ID: "a-001", Owner: "A"}); err != nil {
			t.Fatal(err)
		}
		if err := s.RetryCallback(ctx, job.DueCallback{ID: "b-000", Owner: "B"}, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, err := s.ClaimCallbacks(ctx, job.CallbackClaim{Now: now.Add(2 * time.Minute), Lease: time.Minute, N: 10, Each: 10})
		if err != nil || len(got) != 1 || got[0] != (job.DueCallback{ID: "a-000", Owner: "A"}) {
			t.Errorf("claimed %v (%v), want a-000 alone: a-001 is done, b-000 due in an hour", got, err)
		}
		// A callback taken off is not queued again by a retry.
		if err := s.RetryCallback(ctx, job.DueCallback{ID: "a-001", Owner: "A"}, now); err != nil {
			t.Fatal(err)
		}
		got, err = s.ClaimCallbacks(ctx, job.CallbackClaim{Now: now.Add(4 * time.Minute), Lease: time.Minute, N: 10, Each: 10})
		if err != nil || len(got) != 1 || got[0].ID != "a-000" {
			t.Errorf("claimed %v (%v), want a-000 alone", got, err)
		}
	})
}
