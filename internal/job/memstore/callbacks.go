package memstore

import (
	"container/heap"
	"context"
	"slices"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// hooks is the queue of due callbacks (job.CallbackQueue): a lane per key, each a heap
// of that key's callbacks by when they are due, so that a claim takes the keys in turn
// without looking at every callback queued.
type hooks struct {
	lanes map[string]*lane // by owner
	byID  map[string]*hook
}

// hook is one queued callback.
type hook struct {
	id, owner string
	at        time.Time // due
	i         int       // in its lane's heap
}

// lane is a key's callbacks, a heap by when each is due.
type lane []*hook

func (l lane) Len() int           { return len(l) }
func (l lane) Less(i, j int) bool { return l[i].at.Before(l[j].at) }
func (l lane) Swap(i, j int)      { l[i], l[j] = l[j], l[i]; l[i].i, l[j].i = i, j }
func (l *lane) Push(x any)        { h := x.(*hook); h.i = len(*l); *l = append(*l, h) }
func (l *lane) Pop() any {
	old := *l
	h := old[len(old)-1]
	*l = old[:len(old)-1]
	return h
}

func newHooks() hooks { return hooks{lanes: map[string]*lane{}, byID: map[string]*hook{}} }

// add queues the callback of job id of owner, due at at.
func (q *hooks) add(id, owner string, at time.Time) {
	if h, ok := q.byID[id]; ok {
		q.move(h, at)
		return
	}
	l := q.lanes[owner]
	if l == nil {
		l = &lane{}
		q.lanes[owner] = l
	}
	h := &hook{id: id, owner: owner, at: at}
	q.byID[id] = h
	heap.Push(l, h)
}

// move makes a queued callback due at at.
func (q *hooks) move(h *hook, at time.Time) {
	h.at = at
	heap.Fix(q.lanes[h.owner], h.i)
}

// remove takes the callback of job id off the queue, if it is there.
func (q *hooks) remove(id string) {
	h, ok := q.byID[id]
	if !ok {
		return
	}
	delete(q.byID, id)
	l := q.lanes[h.owner]
	heap.Remove(l, h.i)
	if l.Len() == 0 {
		delete(q.lanes, h.owner)
	}
}

// claim takes the callbacks due at c.Now a key at a time, the key whose callback has
// waited longest first, within c's bounds, and leases each.
func (q *hooks) claim(c job.CallbackClaim) []job.DueCallback {
	type turn struct {
		l    *lane
		left int
	}
	var turns []turn
	for owner, l := range q.lanes {
		if n := c.Cap(owner); n > 0 && !(*l)[0].at.After(c.Now) {
			turns = append(turns, turn{l, n})
		}
	}
	slices.SortFunc(turns, func(a, b turn) int { return (*a.l)[0].at.Compare((*b.l)[0].at) })
	var out []job.DueCallback
	until := c.Now.Add(c.Lease)
	for len(turns) > 0 && len(out) < c.N {
		next := turns[:0]
		for _, t := range turns {
			if len(out) == c.N {
				break
			}
			h := (*t.l)[0]
			if h.at.After(c.Now) {
				continue // this key has nothing more due
			}
			out = append(out, job.DueCallback{ID: h.id, Owner: h.owner})
			q.move(h, until)
			if t.left--; t.left > 0 {
				next = append(next, t)
			}
		}
		turns = next
	}
	return out
}

// ClaimCallbacks returns the callbacks due at c.Now, the keys in turn, each leased
// until c.Now+c.Lease.
func (s *Store) ClaimCallbacks(_ context.Context, c job.CallbackClaim) ([]job.DueCallback, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.due.claim(c), nil
}

// RetryCallback makes a queued callback due at at.
func (s *Store) RetryCallback(_ context.Context, cb job.DueCallback, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.due.byID[cb.ID]; ok {
		s.due.move(h, at)
	}
	return nil
}

// DoneCallback takes a callback off the queue.
func (s *Store) DoneCallback(_ context.Context, cb job.DueCallback) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.due.remove(cb.ID)
	return nil
}
