package queue

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// wakeChannel is the Redis pub/sub channel on which Runners announce a new task on a
// queue. In Redis Cluster it is a sharded channel with the queue's hash tag, so that
// it lives on the node of the queue's slot and a script that pushes a task there may
// publish on it.
func wakeChannel(queue string, cluster bool) string {
	if cluster {
		return "inferd:wake:{" + queue + "}"
	}
	return "inferd:wake:" + queue
}

// waker lets an idle worker start a job as soon as a Runner announces it, instead of at
// its next poll.
//
// asynq's processor asks for a task with a dequeue script and, when the queue is empty,
// sleeps 0.5 to 1.5 times TaskCheckInterval, which nothing can cut short. The waker is
// a hook on the worker's Redis client: when the dequeue script finds the queue empty, it
// holds the answer until a Runner announces a task (on wakeChannel) or the poll interval
// passes, and on an announcement runs the script once more. asynq, whose own sleep is
// then short, sees a task a round trip after it was queued. Announcements are only a
// hint: one lost (a dropped subscription, a task that came back from retry) costs at
// most a poll interval, as before.
//
// With several queues (shards), asynq runs the dequeue script on each in turn, in an
// order of its own: the waker holds only once every queue has come back empty since
// the last task found, so that a worker never waits on one empty shard while another
// holds tasks.
//
// The dequeue script is recognised by its keys, those of asynq v0.26.0's layout for the
// queue: pending, paused, active, lease. TestWakeUp fails if that stops being so. At
// run time, a guard watches for the sign that it has (see guard): then every script
// that finds nothing is held, announcement or PollInterval, so that the worker polls
// as plain asynq would rather than a thousand times a second.
type waker struct {
	queues map[string]queueKeys // by pending key
	n      int                  // how many queues asynq asks in a round
	wait   time.Duration
	// announced counts the announcements heard per queue (by pending key, from the
	// channel's name), and empty holds the queues a dequeue found empty, with the
	// count before it: asynq asks every queue in turn, most of them empty (a job's
	// priority and shard are one queue of several), and a queue found empty since
	// its last announcement is answered empty without a round trip, for up to wait
	// (tasks that come back from retry are not announced).
	announced map[string]*atomic.Uint64
	byChannel map[string]string // pending key by wake channel
	emptyMu   sync.Mutex
	empty     map[string]emptyMark
	empties   atomic.Int64  // empty dequeues in a row
	passes    atomic.Int64  // unrecognised empty answers let through after a fallen-back hold
	wake      chan struct{} // one buffered announcement
	stop      chan struct{} // closed on shutdown: holds end at once
	stopOnce  sync.Once
	guard     guard
	// onHold, when set (by tests, before the worker starts), is told as each hold
	// begins, so that a test knows a worker is idle and waiting without sleeping.
	onHold func()
}

// queueKeys are the paused and active keys of a queue, after its pending key.
type queueKeys struct{ paused, active string }

// emptyMark is when a dequeue found a queue empty, and the announcements heard
// before it was sent.
type emptyMark struct {
	at        time.Time
	announced uint64
}

func newWaker(queues []string, wait time.Duration, fellBack func()) *waker {
	keys := make(map[string]queueKeys, len(queues))
	announced := make(map[string]*atomic.Uint64, len(queues))
	byChannel := make(map[string]string, 2*len(queues))
	for _, q := range queues {
		prefix := "asynq:{" + q + "}:"
		keys[prefix+"pending"] = queueKeys{paused: prefix + "paused", active: prefix + "active"}
		announced[prefix+"pending"] = new(atomic.Uint64)
		byChannel[wakeChannel(q, false)] = prefix + "pending"
		byChannel[wakeChannel(q, true)] = prefix + "pending"
	}
	return &waker{
		queues:    keys,
		n:         len(queues),
		announced: announced,
		byChannel: byChannel,
		empty:     map[string]emptyMark{},
		wait:      wait,
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		guard:     guard{fellBack: fellBack},
	}
}

// listen passes announcements on ps to the waker until ps is closed; a worker with
// several subscriptions (sharded channels on several nodes) listens to each.
func (w *waker) listen(ps *redis.PubSub) {
	for msg := range ps.Channel() {
		if c := w.announced[w.byChannel[msg.Channel]]; c != nil {
			c.Add(1)
		}
		select {
		case w.wake <- struct{}{}:
		default: // one pending announcement is as good as many
		}
	}
}

// close ends any hold now and every later one at once.
func (w *waker) close() { w.stopOnce.Do(func() { close(w.stop) }) }

func (w *waker) DialHook(next redis.DialHook) redis.DialHook { return next }

func (w *waker) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (w *waker) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !isScript(cmd) {
			return next(ctx, cmd)
		}
		k := w.dequeueKey(cmd)
		var err error
		if k != "" && w.knownEmpty(k, time.Now()) {
			err = redis.Nil
			cmd.SetErr(err)
		} else {
			var heard uint64
			if k != "" {
				heard = w.announced[k].Load()
			}
			err = next(ctx, cmd)
			if k != "" && errors.Is(err, redis.Nil) {
				w.markEmpty(k, heard)
			}
		}
		if !errors.Is(err, redis.Nil) {
			if err == nil && k != "" {
				w.empties.Store(0)
			}
			return err
		}
		if k == "" {
			if w.guard.emptyUnknown(time.Now()) {
				// Plain polling: whatever found nothing is asked again later, but
				// every queue is asked after a hold before the next one. The hold may
				// fall anywhere in asynq's round, and the next round asks the queues
				// in another order: the rest of this round and all of the next pass.
				if w.passes.Add(-1) >= 0 {
					return err
				}
				w.hold(ctx)
				w.passes.Store(int64(2*w.n - 1))
				// Ask again what the hold held: the task announced meanwhile may be in
				// this very queue, which the round's other calls do not ask, and the
				// next round would hold again before asking it.
				cmd.SetErr(nil)
				return next(ctx, cmd)
			}
			return err
		}
		w.guard.held()
		if w.empties.Add(1) < int64(len(w.queues)) {
			return err // another queue may hold a task: asynq asks it next
		}
		w.empties.Store(0)
		if !w.hold(ctx) {
			return err
		}
		cmd.SetErr(nil)
		return next(ctx, cmd)
	}
}

// hold waits for an announcement (true) or the poll interval, shutdown or ctx (false).
func (w *waker) hold(ctx context.Context) bool {
	if w.onHold != nil {
		w.onHold()
	}
	t := time.NewTimer(w.wait)
	defer t.Stop()
	select {
	case <-w.wake:
		return true
	case <-t.C:
	case <-w.stop:
	case <-ctx.Done():
	}
	return false
}

func isScript(cmd redis.Cmder) bool {
	name := strings.ToLower(cmd.Name())
	return name == "evalsha" || name == "eval"
}

// guard tells a waker that no longer recognises asynq's dequeue. A recognised empty
// dequeue is held, so an idle worker makes a few a second; one not recognised returns
// at once, and asynq, whose own pause is a millisecond, asks again: hundreds of empty
// script answers a second and no hold is that sign. The guard then falls back for good.
type guard struct {
	mu       sync.Mutex
	since    time.Time // the window's start
	empty    int       // unrecognised empty script answers in the window
	holds    int       // recognised dequeues held in the window
	fallen   atomic.Bool
	fellBack func() // told once, when the guard falls back
}

// The guard falls back after guardEmpties unrecognised empty answers within
// guardWindow with no hold among them; an idle worker whose dequeue is recognised
// makes about one per poll interval of its own.
const (
	guardWindow  = time.Second
	guardEmpties = 100
)

// held counts a recognised dequeue held.
func (g *guard) held() {
	g.mu.Lock()
	g.holds++
	g.mu.Unlock()
}

// emptyUnknown counts a script that found nothing and was not recognised, and reports
// whether the waker has fallen back to holding every such answer.
func (g *guard) emptyUnknown(now time.Time) bool {
	if g.fallen.Load() {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Sub(g.since) > guardWindow {
		g.since, g.empty, g.holds = now, 0, 0
	}
	g.empty++
	if g.empty < guardEmpties || g.holds > 0 {
		return false
	}
	g.fallen.Store(true)
	if g.fellBack != nil {
		g.fellBack()
	}
	return true
}

// isDequeue tells asynq's dequeue script on the waker's queue among scripts (EVALSHA
// or EVAL, sha or body): 4 keys, pending, paused, active, lease.
func (w *waker) isDequeue(cmd redis.Cmder) bool { return w.dequeueKey(cmd) != "" }

// dequeueKey is the pending key of the queue cmd dequeues from, or "" when cmd is not
// asynq's dequeue script on one of the waker's queues.
func (w *waker) dequeueKey(cmd redis.Cmder) string {
	a := cmd.Args()
	if len(a) < 7 {
		return ""
	}
	if n, _ := a[2].(int); n != 4 {
		return ""
	}
	k, _ := a[3].(string)
	p, _ := a[4].(string)
	act, _ := a[5].(string)
	if q, ok := w.queues[k]; ok && p == q.paused && act == q.active {
		return k
	}
	return ""
}

// knownEmpty reports whether a dequeue found the queue of pending key k empty less
// than wait ago, and no task was announced on it since.
func (w *waker) knownEmpty(k string, now time.Time) bool {
	w.emptyMu.Lock()
	m, ok := w.empty[k]
	w.emptyMu.Unlock()
	c := w.announced[k]
	return ok && c != nil && now.Sub(m.at) < w.wait && c.Load() == m.announced
}

// markEmpty records that a dequeue sent when heard announcements had been heard found
// the queue of k empty.
func (w *waker) markEmpty(k string, heard uint64) {
	w.emptyMu.Lock()
	w.empty[k] = emptyMark{at: time.Now(), announced: heard}
	w.emptyMu.Unlock()
}
