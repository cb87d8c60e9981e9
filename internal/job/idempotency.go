package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultIdempotencyTTL is how long a store remembers an idempotency key when it is
// given no TTL (and IDEMPOTENCY_TTL's default).
const DefaultIdempotencyTTL = 24 * time.Hour

// Idempotency is a submission's Idempotency-Key with what it must match: a repeat of
// the key within the store's TTL, by the same owner, is answered with the job the
// first created when its Fingerprint is the same, and refused when it is not.
type Idempotency struct {
	// Key is the client's key as it sent it.
	Key string
	// Fingerprint names the operation and the body the key was sent with (a digest:
	// the store keeps it for the key's whole life, the body it does not).
	Fingerprint string
	// Earlier, when set, is the fingerprint servers before 1.7.0 took of the same
	// submission (of its text, where Fingerprint is of its values), so that a key
	// they recorded still finds its job when it is repeated after an upgrade, within
	// its TTL. It is called only when Fingerprint does not match.
	Earlier func() string
}

// Scope is the name the store keeps the key under for owner: a digest, so that a
// key's length or bytes never reach the store's key names, and one owner's keys never
// meet another's.
func (i Idempotency) Scope(owner string) string {
	h := sha256.New()
	h.Write([]byte(owner))
	h.Write([]byte{0})
	h.Write([]byte(i.Key))
	return hex.EncodeToString(h.Sum(nil))
}

// Use is what a store remembers of an idempotency key's first use.
type Use struct {
	Fingerprint string
	JobID       string
	// PendingUntil is when the first submission stops being taken as still being
	// accepted; zero once it was accepted. A duplicate before then is told to retry
	// (ErrIdempotencyInProgress) rather than given a job its first submitter may yet
	// be refused.
	PendingUntil time.Time
}

// Encode is the Use as the Redis store keeps it: "fingerprint job-id pending-until-ms".
func (u Use) Encode() string {
	var ms int64
	if !u.PendingUntil.IsZero() {
		ms = u.PendingUntil.UnixMilli()
	}
	return u.Fingerprint + " " + u.JobID + " " + strconv.FormatInt(ms, 10)
}

// DecodeUse reads what Encode wrote.
func DecodeUse(s string) (Use, error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return Use{}, fmt.Errorf("malformed idempotency record %q", s)
	}
	ms, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return Use{}, fmt.Errorf("malformed idempotency record %q", s)
	}
	u := Use{Fingerprint: f[0], JobID: f[1]}
	if ms > 0 {
		u.PendingUntil = time.UnixMilli(ms)
	}
	return u, nil
}

// Sentinel errors of idempotent submissions.
var (
	// ErrIdempotencyMismatch: the key was used, within its TTL, for another body or
	// operation.
	ErrIdempotencyMismatch = errors.New("idempotency key reused with another request")
	// ErrIdempotencyInProgress: the key's first submission is still being accepted.
	ErrIdempotencyInProgress = errors.New("idempotency key in use by a submission in progress")
)

// InProgressError is ErrIdempotencyInProgress with when to retry.
type InProgressError struct {
	RetryAfter time.Duration
}

func (e *InProgressError) Error() string {
	return "a submission with this Idempotency-Key is still being accepted; retry after it was answered, with the same key and body"
}

func (e *InProgressError) Unwrap() error { return ErrIdempotencyInProgress }

// answer is how a submission that found a prior use of its key ends: with that use's
// job, or refused.
func (u Use) answer(idem Idempotency, now time.Time) (Record, error) {
	if u.Fingerprint != idem.Fingerprint && (idem.Earlier == nil || u.Fingerprint != idem.Earlier()) {
		return Record{}, fmt.Errorf("%w: this Idempotency-Key was first sent with another body or to another operation, within IDEMPOTENCY_TTL; send this request with a new key", ErrIdempotencyMismatch)
	}
	if !u.PendingUntil.IsZero() && now.Before(u.PendingUntil) {
		return Record{}, &InProgressError{RetryAfter: u.PendingUntil.Sub(now)}
	}
	return Record{ID: u.JobID}, nil
}

// OnceStore is a Store that keeps idempotency keys with the records they created, for
// submissions in Steps.
type OnceStore interface {
	Store
	// CreateOnce is Create, unless rec.Owner used idem.Key within the store's TTL: then
	// it writes nothing and returns that use. The key is remembered with rec's id,
	// pending until pendingUntil, in the same atomic step as the record.
	CreateOnce(ctx context.Context, rec Record, idem Idempotency, pendingUntil time.Time) (*Use, error)
	// Settle is Submitter's.
	Settle(ctx context.Context, owner string, idem Idempotency, id string, ok bool) error
	// SameShard is Submitter's: a store that keeps every job in one place answers true.
	SameShard(id string, owner string, idem Idempotency) bool
}
