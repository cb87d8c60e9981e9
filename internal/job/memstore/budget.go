package memstore

import (
	"time"

	"github.com/inferd/inferd/internal/job"
)

// holdings are the records one owner holds against its byte budget: what each costs
// (job.RecordCost of its encoding, as the Redis store counts it), their sum, and the
// part of the sum that unfinished records hold.
type holdings struct {
	held, open int64
	cost       map[string]int64
}

// cost is what rec costs its owner's budget, or 0 when the store has no budget or
// rec has no owner.
func (s *Store) cost(rec *job.Record) int64 {
	if s.maxBytes == 0 || rec.Owner == "" {
		return 0
	}
	b, err := job.EncodeJSON(rec)
	if err != nil {
		return 0 // a record that cannot be encoded is no record the Redis store holds
	}
	return job.RecordCost(len(b))
}

// afford refuses rec, costing cost, when its owner's records would pass the budget
// with it. Over the budget it first drops the owner's expired records, which the
// sweep may not have reached yet, so their bytes are free from the moment they read
// 404. That scan, and the one for the earliest expiry, run only for a key at its
// budget.
func (s *Store) afford(rec *job.Record, cost int64, now time.Time) error {
	if cost > s.maxBytes {
		return job.TooLarge(cost, s.maxBytes)
	}
	h := s.bytes[rec.Owner]
	if h == nil || h.held+cost <= s.maxBytes {
		return nil
	}
	var earliest time.Time
	for id := range h.cost {
		r, ok := s.recs[id]
		if !ok {
			continue // cannot be: a record leaves through drop, which forgets it
		}
		if s.expired(r, now) {
			s.drop(id, r)
			continue
		}
		if at := s.expiry(r); earliest.IsZero() || at.Before(earliest) {
			earliest = at
		}
	}
	if h.held+cost <= s.maxBytes {
		return nil
	}
	return job.BytesLimitReached(h.held, h.open, cost, s.maxBytes, earliest, now, s.ttl)
}

// hold counts rec, costing cost, against its owner's budget.
func (s *Store) hold(rec *job.Record, cost int64) {
	if cost == 0 {
		return
	}
	h := s.bytes[rec.Owner]
	if h == nil {
		h = &holdings{cost: map[string]int64{}}
		s.bytes[rec.Owner] = h
	}
	h.cost[rec.ID] = cost
	h.held += cost
	if !rec.Status.Final() {
		h.open += cost
	}
}

// recount updates the cost of a counted record that changed from prev to next.
func (s *Store) recount(prev, next *job.Record) {
	h := s.bytes[prev.Owner]
	if h == nil {
		return
	}
	if _, ok := h.cost[prev.ID]; !ok {
		return
	}
	s.forget(prev)
	s.hold(next, s.cost(next))
}

// forget stops counting r against its owner's budget.
func (s *Store) forget(r *job.Record) {
	h := s.bytes[r.Owner]
	if h == nil {
		return
	}
	c, ok := h.cost[r.ID]
	if !ok {
		return
	}
	delete(h.cost, r.ID)
	h.held -= c
	if !r.Status.Final() {
		h.open -= c
	}
	if len(h.cost) == 0 {
		delete(s.bytes, r.Owner)
	}
}

// expiry is when r expires: its TTL after it finished, or its max age after its
// creation while it has not.
func (s *Store) expiry(r *job.Record) time.Time {
	if !r.Status.Final() || r.FinishedAt.IsZero() {
		return r.CreatedAt.Add(s.maxAge)
	}
	return r.FinishedAt.Add(s.ttl)
}
