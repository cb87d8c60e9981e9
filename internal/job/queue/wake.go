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
	queues   map[string]queueKeys // by pending key
	wait     time.Duration
	empties  atomic.Int64  // empty dequeues in a row
	wake     chan struct{} // one buffered announcement
	stop     chan struct{} // closed on shutdown: holds end at once
	stopOnce sync.Once
	guard    guard
	// onHold, when set (by tests, before the worker starts), is told as each hold
	// begins, so that a test knows a worker is idle and waiting without sleeping.
	onHold func()
}

// queueKeys are the paused and active keys of a queue, after its pending key.
type queueKeys struct{ paused, active string }

func newWaker(queues []string, wait time.Duration, fellBack func()) *waker {
	keys := make(map[string]queueKeys, len(queues))
	for _, q := range queues {
		prefix := "asynq:{" + q + "}:"
		keys[prefix+"pending"] = queueKeys{paused: prefix + "paused", active: prefix + "active"}
	}
	return &waker{
		queues: keys,
		wait:   wait,
		wake:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		guard:  guard{fellBack: fellBack},
	}
}

// listen passes announcements on ps to the waker until ps is closed; a worker with
// several subscriptions (sharded channels on several nodes) listens to each.
func (w *waker) listen(ps *redis.PubSub) {
	for range ps.Channel() {
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
		err := next(ctx, cmd)
		if !isScript(cmd) {
			return err
		}
		if !errors.Is(err, redis.Nil) {
			if err == nil && w.isDequeue(cmd) {
				w.empties.Store(0)
			}
			return err
		}
		if !w.isDequeue(cmd) {
			if w.guard.emptyUnknown(time.Now()) {
				w.hold(ctx) // plain polling: whatever found nothing is asked again later
			}
			return err
		}
		w.guard.held()
		if w.empties.Add(1) < int64(len(w.queues)) {
			return err // another shard may hold a task: asynq asks it next
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
func (w *waker) isDequeue(cmd redis.Cmder) bool {
	a := cmd.Args()
	if len(a) < 7 {
		return false
	}
	if n, _ := a[2].(int); n != 4 {
		return false
	}
	k, _ := a[3].(string)
	p, _ := a[4].(string)
	act, _ := a[5].(string)
	q, ok := w.queues[k]
	return ok && p == q.paused && act == q.active
}
