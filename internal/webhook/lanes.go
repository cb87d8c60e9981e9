package webhook

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// forgetAfter is how long a receiver's lane is remembered once it has nothing under
// way: longer than any wait it imposes (MaxRetryWait).
const forgetAfter = 2 * MaxRetryWait

// lanes shares a dispatcher's attempts: between keys, each its fair share of the
// slots, and away from receivers that do not answer, each of which gets one attempt
// at a time in a lane of its own while it keeps timing out.
//
// A key's fair share is the slots divided by the keys with attempts under way (at
// least one). A key alone may take every slot; when another key's callbacks come due,
// that key starts up to its share at once, beyond the slots if they are taken, and a
// key over its share starts no more until it is under it: since an attempt cannot be
// stopped early, a receiver that hangs would otherwise hold its slots for a whole
// timeout, and every other key's callbacks behind them. Attempts under way are bounded
// by twice the slots.
type lanes struct {
	slots   int
	timeout time.Duration // an attempt's bound, the first wait of a slow lane

	mu        sync.Mutex
	total     int
	keys      map[string]int // attempts under way (or about to be) by key
	receivers map[string]*receiver
	swept     time.Time
	// freed is signalled when an attempt ends, for the dispatcher to claim again.
	freed chan struct{}
}

// receiver is the lane of one receiver (scheme, host and port).
type receiver struct {
	busy int // attempts under way
	// slow is set when an attempt timed out, and cleared when one is answered in
	// time or fails at once: while it is set, one attempt at a time.
	slow bool
	// probes counts the attempts made in the slow lane that timed out in turn: each
	// doubles the wait of the callbacks held back.
	probes int
	last   time.Time // when an attempt last ended
}

func newLanes(slots int, timeout time.Duration) *lanes {
	return &lanes{
		slots: slots, timeout: timeout,
		keys: map[string]int{}, receivers: map[string]*receiver{},
		freed: make(chan struct{}, 1),
	}
}

// fair is a key's share of the slots when n keys want them.
func (l *lanes) fair(n int) int { return max(1, l.slots/max(n, 1)) }

// claim says what the next claim may take: up to its fair share of each key with
// attempts under way, and a newcomer's share of any other key, within twice the
// slots. N is 0 when nothing may start.
func (l *lanes) claim(now time.Time, lease time.Duration) job.CallbackClaim {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := job.CallbackClaim{Now: now, Lease: lease, Caps: make(map[string]int, len(l.keys))}
	share := l.fair(len(l.keys))
	for key, n := range l.keys {
		c.Caps[key] = max(share-n, 0)
	}
	c.Each = l.fair(len(l.keys) + 1)
	c.N = max(2*l.slots-l.total, 0)
	if l.total >= l.slots {
		// Only keys under their share may start, and only so many.
		under := c.Each
		for _, n := range c.Caps {
			under += n
		}
		c.N = min(c.N, under)
	} else {
		c.N = min(c.N, max(l.slots-l.total, c.Each))
	}
	if now.Sub(l.swept) > forgetAfter {
		for origin, r := range l.receivers {
			if r.busy == 0 && now.Sub(r.last) > forgetAfter {
				delete(l.receivers, origin)
			}
		}
		l.swept = now
	}
	return c
}

// take counts an attempt of key as under way.
func (l *lanes) take(key string) {
	l.mu.Lock()
	l.keys[key]++
	l.total++
	l.mu.Unlock()
}

// put counts an attempt of key as ended, and wakes the dispatcher.
func (l *lanes) put(key string) {
	l.mu.Lock()
	if l.keys[key]--; l.keys[key] <= 0 {
		delete(l.keys, key)
	}
	l.total--
	l.mu.Unlock()
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

// enter asks the lane of the receiver origin for an attempt. In a slow lane with an
// attempt under way it refuses, with how long the callback should wait: the timeout,
// doubled for each attempt that timed out in the slow lane, up to MaxRetryWait, less
// up to a fifth at random. probe says the attempt is the slow lane's one.
func (l *lanes) enter(origin string) (ok, probe bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.receivers[origin]
	if r == nil {
		r = &receiver{}
		l.receivers[origin] = r
	}
	if r.slow && r.busy > 0 {
		w := MaxRetryWait
		if r.probes < 20 {
			w = min(l.timeout<<r.probes, MaxRetryWait)
		}
		return false, false, w - rand.N(w/5+1)
	}
	r.busy++
	return true, r.slow, 0
}

// leave ends an attempt at origin that timed out or did not, and says whether it
// changed the lane: into the slow lane, or out of it.
func (l *lanes) leave(origin string, probe, timedOut bool, now time.Time) (slowed, recovered bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.receivers[origin]
	r.busy--
	r.last = now
	switch {
	case timedOut && !r.slow:
		r.slow, r.probes = true, 0
		return true, false
	case timedOut && probe:
		r.probes++
	case !timedOut && r.slow:
		r.slow, r.probes = false, 0
		return false, true
	}
	return false, false
}
