package job_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/job"
)

// TestRecordCost: a record costs its encoded bytes and string header rounded up to
// jemalloc's size class (four per power of two), plus the bookkeeping overhead.
func TestRecordCost(t *testing.T) {
	const o = job.RecordOverhead
	tests := []struct {
		n    int
		want int64
	}{
		{0, 16 + o},
		{194, 224 + o},   // 210 bytes: the class of 224
		{1008, 1024 + o}, // 1 KiB exactly
		{1009, 1280 + o}, // one byte over: the next class, a quarter more
		{1_000_000, 1<<20 + o},
		{1<<20 - 16, 1<<20 + o},
		{1<<20 - 15, 1<<20 + 1<<18 + o},
		{100_000, 114688 + o},
	}
	for _, tt := range tests {
		if got := job.RecordCost(tt.n); got != tt.want {
			t.Errorf("RecordCost(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
	for n := range 1 << 16 {
		if c := job.RecordCost(n) - o; c < int64(n)+16 || c > (int64(n)+16)*5/4+16 {
			t.Fatalf("RecordCost(%d) = %d + overhead: not within a quarter above the size", n, c)
		}
	}
}

// TestBytesLimitReached: Retry-After is 1 s when the key's unfinished jobs hold enough
// input to make room by finishing with smaller results, and otherwise when its first
// record expires, or a TTL from now when an unfinished job could finish now and expire
// before that.
func TestBytesLimitReached(t *testing.T) {
	const (
		mb  = 1 << 20
		ttl = 24 * time.Hour
	)
	now := t0
	tests := []struct {
		name                     string
		held, open, cost, budget int64
		earliest                 time.Time
		want                     time.Duration
		say                      string
	}{
		{"all finished", 100 * mb, 0, mb, 100 * mb, now.Add(3 * time.Hour), 3 * time.Hour, "first expires in 3h0m0s"},
		{"unfinished enough to make room", 100 * mb, 2 * mb, mb, 100 * mb, now.Add(3 * time.Hour), time.Second, "retry in a moment"},
		{"unfinished too few, expiring later", 100 * mb, mb / 2, mb, 100 * mb, now.Add(48 * time.Hour), ttl, "first expires in 24h0m0s"},
		{"unfinished too few, finished expire first", 100 * mb, mb / 2, mb, 100 * mb, now.Add(time.Hour), time.Hour, "first expires in 1h0m0s"},
		{"expired already", 100 * mb, 0, mb, 100 * mb, now.Add(-time.Second), time.Second, "first expires in 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := job.BytesLimitReached(tt.held, tt.open, tt.cost, tt.budget, tt.earliest, now, ttl)
			if !errors.Is(err, job.ErrJobBytesLimit) || err.RetryAfter != tt.want {
				t.Errorf("RetryAfter %s (%v), want %s", err.RetryAfter, err, tt.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.say) || !strings.Contains(msg, "MAX_JOB_BYTES_PER_KEY") {
				t.Errorf("message %q, want it to say %q", msg, tt.say)
			}
		})
	}
}
