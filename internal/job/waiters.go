package job

import (
	"sync"
)

// DefaultMaxWaiters bounds the waits a Waiters holds when its Max is 0.
const DefaultMaxWaiters = 10000

// Waiters wakes the requests that wait for jobs to finish (a long poll). Whoever learns
// that a job's record became final calls Finish with the record, or Wake with its id
// when it has only that: the store that wrote it in this process, or the subscription
// to the finished-jobs channels in queue mode. A wait finished with its record answers
// with it; one woken by id re-reads the record, so a wake that was not for a final
// record costs one read. The zero value is ready to use.
type Waiters struct {
	// Max bounds the waits held at once; a wait beyond it answers at once. 0 means
	// DefaultMaxWaiters.
	Max int
	// Track, when not 0, is how many jobs submitted in this process the Waiters keeps
	// track of (Submitting), so that a wait for one need not read its record before
	// it waits: a job whose final record the Waiters has not heard of since it was
	// submitted has not finished. Set it only where every final record reaches the
	// Waiters while it listens; it starts tracking at the first WakeAll (a
	// subscription confirmed), and each later one forgets every job it tracked, whose
	// final records it may have missed.
	Track int

	mu     sync.Mutex
	byID   map[string]map[*waiter]struct{}
	n      int
	closed bool
	done   chan struct{} // closed by Close

	listening bool
	tracked   map[string]struct{} // submitted here, final record not heard of
	order     []string            // tracked ids oldest first, as a ring of Track
	next      int                 // the ring's oldest when it is full
}

// waiter is one wait; woken holds at most one wake, since a woken waiter re-reads the
// record whatever number of wakes it missed, unless it was handed the final record
// (final, guarded by the Waiters' mu).
type waiter struct {
	woken chan struct{}
	final *Record
}

// add registers a wait for id. ok is false when the wait must answer at once: too many
// waits, or Close was called.
func (w *Waiters) add(id string) (wt *waiter, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	max := w.Max
	if max <= 0 {
		max = DefaultMaxWaiters
	}
	if w.closed || w.n >= max {
		return nil, false
	}
	if w.byID == nil {
		w.byID = map[string]map[*waiter]struct{}{}
	}
	set := w.byID[id]
	if set == nil {
		set = map[*waiter]struct{}{}
		w.byID[id] = set
	}
	wt = &waiter{woken: make(chan struct{}, 1)}
	set[wt] = struct{}{}
	w.n++
	return wt, true
}

// remove ends a wait add registered.
func (w *Waiters) remove(id string, wt *waiter) {
	w.mu.Lock()
	defer w.mu.Unlock()
	set := w.byID[id]
	if _, ok := set[wt]; !ok {
		return
	}
	delete(set, wt)
	if len(set) == 0 {
		delete(w.byID, id)
	}
	w.n--
}

// Wake wakes the waits for the job id.
func (w *Waiters) Wake(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.tracked, id) // a job's id is published when it becomes final
	for wt := range w.byID[id] {
		wt.wake()
	}
}

// Finish ends the waits for rec's job with rec, which must be final: they answer with
// it and read nothing.
func (w *Waiters) Finish(rec Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.tracked, rec.ID)
	for wt := range w.byID[rec.ID] {
		wt.final = &rec
		wt.wake()
	}
}

// finalOf returns the record Finish handed wt, or nil.
func (w *Waiters) finalOf(wt *waiter) *Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	return wt.final
}

// WakeAll wakes every wait, for a caller that may have missed wakes (a subscription
// that was re-established): each re-reads its record. The jobs tracked are forgotten,
// for the same reason, and the Waiters tracks those submitted from now on.
func (w *Waiters) WakeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.tracked)
	w.listening = true
	for _, set := range w.byID {
		for wt := range set {
			wt.wake()
		}
	}
}

// Submitting tracks the job id, which this process is about to submit, when Track is
// set and the Waiters listens: until its final record is heard of, a wait for it reads
// nothing before it waits. It comes before the submission, so that the final record
// cannot be heard of first; Forget undoes it for a submission that failed.
func (w *Waiters) Submitting(id string) {
	if w.Track <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.listening {
		return
	}
	if w.tracked == nil {
		w.tracked = map[string]struct{}{}
	}
	if len(w.order) < w.Track {
		w.order = append(w.order, id)
	} else {
		delete(w.tracked, w.order[w.next])
		w.order[w.next] = id
		w.next = (w.next + 1) % len(w.order)
	}
	w.tracked[id] = struct{}{}
}

// Forget stops tracking the job id.
func (w *Waiters) Forget(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.tracked, id)
}

// Awaited reports whether a wait holds for the job id, whose final record the caller
// has heard of and not decoded yet, and stops tracking the job either way: a wait that
// comes later reads the record, final by then. A caller that finds none need not
// decode the record for nobody.
func (w *Waiters) Awaited(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.tracked, id)
	return len(w.byID[id]) > 0
}

// Tracking reports whether the Waiters tracks the jobs submitted from now on: Track is
// set, and it listens.
func (w *Waiters) Tracking() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Track > 0 && w.listening
}

// unfinished reports whether the job id is tracked: submitted here, and not heard of
// as final since.
func (w *Waiters) unfinished(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.tracked[id]
	return ok
}

// Len returns the number of waits held.
func (w *Waiters) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Close ends every wait, which answers the record as it is, and makes later waits
// answer at once: the server is shutting down and must not be held by long polls.
func (w *Waiters) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	w.doneLocked()
	close(w.done)
}

// closing returns a channel closed by Close.
func (w *Waiters) closing() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.doneLocked()
}

func (w *Waiters) doneLocked() chan struct{} {
	if w.done == nil {
		w.done = make(chan struct{})
	}
	return w.done
}

func (wt *waiter) wake() {
	select {
	case wt.woken <- struct{}{}:
	default:
	}
}
