package mirror

import (
	"context"
	"time"
)

// Settle is the first sync of a process: a poll, and when a version is pending (its
// listing new to this process, as every listing is at start), another after wait, so
// that a version without SHA256SUMS is taken at start rather than a poll interval
// later, or never with polling off. A version still changing after that is an upload
// under way, which later polls take. The Result is the last poll's, with the versions
// and rules both polls changed and the requests both made.
func (m *Mirror) Settle(ctx context.Context, wait time.Duration) (Result, error) {
	first, err := m.Sync(ctx)
	if err != nil || len(first.Pending) == 0 {
		return first, err
	}
	if err := sleep(ctx, wait); err != nil {
		return first, err
	}
	r, err := m.Sync(ctx)
	r.Start = first.Start
	r.Duration = time.Since(first.Start)
	r.Added = append(first.Added, r.Added...)
	r.Changed = append(first.Changed, r.Changed...)
	r.Removed = append(first.Removed, r.Removed...)
	r.Rules = append(first.Rules, r.Rules...)
	r.Lists += first.Lists
	r.Gets += first.Gets
	r.BytesDownloaded += first.BytesDownloaded
	r.CacheHits += first.CacheHits
	r.Evicted += first.Evicted
	r.EvictedBytes += first.EvictedBytes
	for k, n := range first.Errors {
		r.Errors[k] += n
	}
	return r, err
}
