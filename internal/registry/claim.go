package registry

import (
	"context"
	"sync"
	"time"
)

// claims counts the work accepted for each model beyond the requests in flight: the
// jobs queued for it in this process, and the submissions on their way to the queue.
// UnloadModel waits for a model's count to reach zero, up to UnloadTimeout, so that
// jobs accepted before an unload run before the model is dropped.
type claims struct {
	mu   sync.Mutex
	n    map[string]int
	idle map[string]chan struct{} // closed when the model's count reaches zero
}

// Claim counts one piece of work accepted for model, such as a job queued to run on
// it, until the function it returns is called (once; later calls do nothing).
// UnloadModel waits, up to UnloadTimeout, for a model's claims to be released before
// it drops the model; a job that runs after that fails with ErrModelUnloaded.
func (r *Registry) Claim(model string) (release func()) {
	c := &r.claims
	c.mu.Lock()
	if c.n == nil {
		c.n, c.idle = map[string]int{}, map[string]chan struct{}{}
	}
	c.n[model]++
	c.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { c.release(model) }) }
}

func (c *claims) release(model string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[model]--; c.n[model] > 0 {
		return
	}
	delete(c.n, model)
	if ch := c.idle[model]; ch != nil {
		close(ch)
		delete(c.idle, model)
	}
}

// wait returns once model has no claims, or d has passed, or ctx has ended; left is
// how many claims were still held then.
func (c *claims) wait(ctx context.Context, model string, d time.Duration) (left int) {
	c.mu.Lock()
	n := c.n[model]
	if n == 0 || d <= 0 {
		c.mu.Unlock()
		return n
	}
	ch := c.idle[model]
	if ch == nil {
		ch = make(chan struct{})
		c.idle[model] = ch
	}
	c.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return 0
	case <-t.C:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[model]
}
