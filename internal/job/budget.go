package job

import (
	"errors"
	"fmt"
	"time"
)

// DefaultMaxBytesPerKey is MAX_JOB_BYTES_PER_KEY's default: the bytes of job records
// one key may hold until they expire. Stores given no budget (0) count nothing.
const DefaultMaxBytesPerKey = 256 << 20

// RecordOverhead is what a store charges a record beyond its encoded bytes: in Redis
// its key, its expiry and its entries in the budget's own sorted set and in the cap's
// (about 450 bytes measured with Redis 7 and jemalloc), rounded up so that the budget
// bounds memory rather than payload.
const RecordOverhead = 512

// RecordCost is what a record of n encoded bytes costs its key's budget: n, plus the
// string header, rounded up to the size class an allocator like jemalloc gives it
// (four classes per power of two: a record of 1 MiB and 100 bytes takes 1.25 MiB of
// Redis), plus RecordOverhead. redisstore's scripts compute the same in Lua
// (TestRecordCostMatchesLua).
func RecordCost(n int) int64 {
	size := int64(n) + 16
	p := int64(16)
	for p*2 < size {
		p *= 2
	}
	g := max(p/4, 16)
	return (size+g-1)/g*g + RecordOverhead
}

var (
	// ErrJobBytesLimit: the records the submitting key holds, with this job's, would
	// pass the key's byte budget; retry when some have expired.
	ErrJobBytesLimit = errors.New("job records over the key's byte budget")
	// ErrJobTooLarge: the job's record alone costs more than a key's byte budget, so
	// no retry can succeed.
	ErrJobTooLarge = errors.New("job larger than a key's byte budget")
)

// BytesLimitError is the ErrJobBytesLimit a store answers, with what the client needs
// to know when to retry.
type BytesLimitError struct {
	// Held is what the key's records cost now, Open the part of it that is the input
	// of jobs waiting or running, Cost what this job's record would add, and Budget
	// the most the key may hold.
	Held, Open, Cost, Budget int64
	// RetryAfter is the earliest a retry can succeed: when the key's first record
	// expires, or at once when its unfinished jobs hold enough input to make room as
	// they finish with smaller results.
	RetryAfter time.Duration
}

// BytesLimitReached is the refusal of a job costing cost for a key whose records cost
// held (open of it unfinished) against budget. earliest is when the first of them
// expires, and ttl how long a record lives once final: an unfinished one may finish
// now and so expire a ttl from now, before its own expiry.
func BytesLimitReached(held, open, cost, budget int64, earliest, now time.Time, ttl time.Duration) *BytesLimitError {
	e := &BytesLimitError{Held: held, Open: open, Cost: cost, Budget: budget}
	if open >= held+cost-budget {
		e.RetryAfter = time.Second
		return e
	}
	if open > 0 && now.Add(ttl).Before(earliest) {
		earliest = now.Add(ttl)
	}
	e.RetryAfter = max(earliest.Sub(now), time.Second)
	return e
}

func (e *BytesLimitError) Error() string {
	head := fmt.Sprintf("%s: this key's job records take %s, and this job's would add %s, past the %s a key may hold (MAX_JOB_BYTES_PER_KEY)",
		ErrJobBytesLimit, mib(e.Held), mib(e.Cost), mib(e.Budget))
	if e.Open >= e.Held+e.Cost-e.Budget {
		return fmt.Sprintf("%s; %s of them is the input of jobs waiting or running, which may make room as they finish: retry in a moment", head, mib(e.Open))
	}
	return fmt.Sprintf("%s; a finished job's record counts until it expires (JOB_TTL after it finished), and the first expires in %s: retry then", head, e.RetryAfter.Round(time.Second))
}

func (e *BytesLimitError) Unwrap() error { return ErrJobBytesLimit }

// TooLarge is the ErrJobTooLarge a store answers for a job whose record alone costs
// cost against budget.
func TooLarge(cost, budget int64) error {
	return fmt.Errorf("%w: this job's record would take %s, more than the %s a key may hold in job records (MAX_JOB_BYTES_PER_KEY); send a smaller input", ErrJobTooLarge, mib(cost), mib(budget))
}

// mib writes a byte count for people.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
