package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// Finished relays the ids of jobs whose records became final, published by every
// Store that shares this one's prefix (the workers' included), to w: one subscription
// per process, however many waits it holds. It returns when ctx ends.
//
// go-redis re-subscribes by itself after a lost connection; what was published
// meanwhile is lost, so on every (re)subscription every wait is woken to re-read its
// record. A wait also re-reads after it registers, so none sleeps through a job that
// finished before the subscription was up.
func (s *Store) Finished(ctx context.Context, w *job.Waiters) {
	ps := s.rc.Subscribe(ctx, s.channel())
	defer func() { _ = ps.Close() }()
	ch := ps.ChannelWithSubscriptions(redis.WithChannelSize(1024))
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			switch m := m.(type) {
			case *redis.Message:
				w.Wake(m.Payload)
			case *redis.Subscription:
				if m.Kind == "subscribe" {
					w.WakeAll()
				}
			}
		}
	}
}
