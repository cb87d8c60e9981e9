package redisstore

import (
	"context"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
)

// Finished relays the jobs whose records became final, published by every Store that
// shares this one's prefix (the workers' included), to w: one subscription per process,
// however many waits it holds. It returns when ctx ends.
//
// A final record of at most maxPublished bytes comes whole, and its waits answer from
// it (Waiters.Finish); every final record's id comes too, and wakes its waits to read
// the record (Waiters.Wake) when they have not had it. Ids alone are what a Store of an
// earlier version publishes, so a server of this version still hears its workers during
// a rolling upgrade.
//
// go-redis re-subscribes by itself after a lost connection; what was published
// meanwhile is lost, so on every (re)subscription every wait is woken to re-read its
// record. A wait also re-reads after it registers, so none sleeps through a job that
// finished before the subscription was up.
func (s *Store) Finished(ctx context.Context, w *job.Waiters) {
	if !s.shards.Tagged {
		s.finished(ctx, w, s.rc.Subscribe(ctx, s.recordsChannel(0), s.channel(0)), s.recordsChannel(0))
		return
	}
	// In Redis Cluster, one sharded subscription per shard, each on its slot's node.
	var wg sync.WaitGroup
	for k := range s.shards.Count() {
		ps := s.rc.SSubscribe(ctx, s.recordsChannel(k), s.channel(k))
		wg.Go(func() { s.finished(ctx, w, ps, s.recordsChannel(k)) })
	}
	wg.Wait()
}

// finished relays what ps hears, records on the channel records and ids on the other,
// until ctx ends.
func (s *Store) finished(ctx context.Context, w *job.Waiters, ps *redis.PubSub, records string) {
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
				if m.Channel != records {
					w.Wake(m.Payload)
				} else if id, ok := publishedID(m.Payload); ok && !w.Awaited(id) {
					// Every server hears every record; only the one that holds a wait
					// for it decodes it.
				} else if rec, err := decode("published", []byte(m.Payload)); err == nil && rec.Status.Final() {
					w.Finish(rec)
				} // one unreadable is still woken by its id, which follows it
			case *redis.Subscription:
				if m.Kind == "subscribe" || m.Kind == "ssubscribe" {
					w.WakeAll()
				}
			}
		}
	}
}

// publishedID reads the id at the head of a published record, as job.EncodeJSON
// writes one, without decoding the rest; ok is false for any other layout.
func publishedID(payload string) (id string, ok bool) {
	rest, ok := strings.CutPrefix(payload, `{"id":"`)
	if !ok {
		return "", false
	}
	end := strings.IndexAny(rest, `"\`)
	if end < 0 || rest[end] != '"' {
		return "", false
	}
	return rest[:end], true
}
