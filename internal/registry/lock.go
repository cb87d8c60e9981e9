package registry

import (
	"context"
	"sync"
)

// modelLocks serialises the control operations of each model: LoadModel, UnloadModel
// and Reload hold their model's lock from their first read of its source to their
// last swap, so that concurrent ones never interleave (an unload dropping the version
// a load has just put in place, leaving the model half there) and a storm of them
// ends in the state the last one asked for. Models are locked by name, so a load of a
// model the registry does not hold yet is serialised too. An entry lives only while
// it is held or waited for.
type modelLocks struct {
	mu    sync.Mutex
	locks map[string]*modelLock
}

type modelLock struct {
	sem  chan struct{} // holds one token while the model is locked
	refs int           // holders and waiters
}

// lock takes name's lock, or gives up when ctx ends first; unlock releases it.
func (l *modelLocks) lock(ctx context.Context, name string) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*modelLock{}
	}
	ml := l.locks[name]
	if ml == nil {
		ml = &modelLock{sem: make(chan struct{}, 1)}
		l.locks[name] = ml
	}
	ml.refs++
	l.mu.Unlock()
	select {
	case ml.sem <- struct{}{}:
		return func() { <-ml.sem; l.done(name, ml) }, nil
	case <-ctx.Done():
		l.done(name, ml)
		return nil, ctx.Err()
	}
}

func (l *modelLocks) done(name string, ml *modelLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ml.refs--; ml.refs == 0 {
		delete(l.locks, name)
	}
}
