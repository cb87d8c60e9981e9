package mirror

import (
	"context"
	"errors"
	"time"

	"github.com/inferd/inferd/internal/signature"
	"github.com/inferd/inferd/internal/store"
)

// Result is what one poll did and found.
type Result struct {
	Start    time.Time
	Duration time.Duration

	// Added, Changed and Removed are the versions the poll put in the copy, replaced
	// in it and took out of it: the ones to load, reload and unload.
	Added, Changed, Removed []Version
	// Rules are the models whose routing.yaml the poll wrote, replaced or removed.
	Rules []string
	// RulesWaiting are the models whose routing.yaml changed in the store (or went)
	// and was left as the copy holds it: a version of the model is pending, failed to
	// copy, or refused with nothing of it in the copy, and the new rule may name it.
	RulesWaiting []string
	// Refused are the versions refused as of this poll, each with its reason; those
	// of a listing refused before cost the poll nothing and have New false. A refused
	// version the copy held before stays in the copy, as it was.
	Refused []Refusal
	// Pending are versions not yet whole: being uploaded, say. They are looked at
	// again on the next poll; the copy keeps what it held of them.
	Pending []Pending

	// Lists and Gets are the requests the poll made: one List per poll (which a
	// bucket answers in a request per 1,000 keys) and a Get per download attempt.
	Lists, Gets int
	// BytesDownloaded counts every byte read from the store, retries' included.
	BytesDownloaded int64
	// CacheHits are files the poll needed and found in the cache, unread.
	CacheHits int
	// CacheBytes is what the cache holds after the poll; Evicted and EvictedBytes
	// what its bound (Options.MaxBytes) removed.
	CacheBytes   int64
	Evicted      int
	EvictedBytes int64

	// Errors counts the poll's failures and new refusals by reason (see Reason).
	Errors map[string]int
	// Err is why the poll failed: the listing could not be read, or a version that
	// changed could not be copied (it is tried again on the next poll). Refusals do
	// not fail a poll: the store answered, and said something wrong.
	Err error
	// Provenance is what the copy verified of every version it holds after the poll.
	Provenance map[Version]Provenance
	// LastSuccess is when a poll last succeeded, this one or an earlier one, of this
	// process or, from the cache's state, of one before it (to within a minute).
	LastSuccess time.Time
}

// Refusal is a version refused, and why.
type Refusal struct {
	Err *RefusedError
	// New: this poll refused it; false: a poll before did, of the same listing.
	New bool
}

// Pending is a version not yet whole, and what it waits for.
type Pending struct {
	Version
	Reason string
}

// Observer is told of every poll (the metrics: last success, bytes downloaded, cache
// hits, errors by reason).
type Observer interface {
	Polled(r Result)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Result)

// Polled calls f.
func (f ObserverFunc) Polled(r Result) { f(r) }

// Reason is a short word for why err happened, for Result.Errors and metric labels:
// the kind of a refusal ("digest_mismatch", "missing_file", "unlisted_file",
// "malformed_sums", "no_digests", "no_config", "unsigned", "bad_signature",
// "malformed_signature"), the store's answer ("unavailable",
// "denied", "not_found", "changed"), "canceled", or "local" for the disk's.
func Reason(err error) string {
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.name
		}
	}
	return "local"
}

var reasons = []struct {
	err  error
	name string
}{
	{ErrDigestMismatch, "digest_mismatch"},
	{ErrMissingFile, "missing_file"},
	{ErrUnlistedFile, "unlisted_file"},
	{ErrMalformedSums, "malformed_sums"},
	{ErrNoDigests, "no_digests"},
	{ErrNoConfig, "no_config"},
	{signature.ErrUnsigned, "unsigned"},
	{signature.ErrBadSignature, "bad_signature"},
	{signature.ErrMalformed, "malformed_signature"},
	{store.ErrUnavailable, "unavailable"},
	{errCut, "unavailable"},
	{store.ErrDenied, "denied"},
	{store.ErrNotFound, "not_found"},
	{store.ErrChanged, "changed"},
	{context.Canceled, "canceled"},
	{context.DeadlineExceeded, "canceled"},
}
