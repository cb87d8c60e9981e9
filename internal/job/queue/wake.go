package queue

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// wakeChannel is the Redis pub/sub channel on which Runners announce a new task on a
// queue.
func wakeChannel(queue string) string { return "inferd:wake:" + queue }

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
// The dequeue script is recognised by its keys, those of asynq v0.26.0's layout for the
// queue: pending, paused, active, lease. TestWakeUp fails if that stops being so.
type waker struct {
	pending, paused, active string
	wait                    time.Duration
	wake                    chan struct{} // one buffered announcement
	stop                    chan struct{} // closed on shutdown: holds end at once
	stopOnce                sync.Once
}

func newWaker(queue string, wait time.Duration) *waker {
	prefix := "asynq:{" + queue + "}:"
	return &waker{
		pending: prefix + "pending",
		paused:  prefix + "paused",
		active:  prefix + "active",
		wait:    wait,
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
	}
}

// listen passes announcements on ps to the waker until ps is closed.
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
		if !errors.Is(err, redis.Nil) || !w.isDequeue(cmd) {
			return err
		}
		t := time.NewTimer(w.wait)
		defer t.Stop()
		select {
		case <-w.wake:
		case <-t.C:
			return err
		case <-w.stop:
			return err
		case <-ctx.Done():
			return err
		}
		cmd.SetErr(nil)
		return next(ctx, cmd)
	}
}

// isDequeue tells asynq's dequeue script on the waker's queue: EVALSHA or EVAL, sha or
// body, 4 keys: pending, paused, active, lease.
func (w *waker) isDequeue(cmd redis.Cmder) bool {
	name := strings.ToLower(cmd.Name())
	if name != "evalsha" && name != "eval" {
		return false
	}
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
	return k == w.pending && p == w.paused && act == w.active
}
