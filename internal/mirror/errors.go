package mirror

import (
	"errors"
	"fmt"
)

// Why a version is refused: a *RefusedError wraps one of these.
var (
	// ErrRefused marks every refusal; errors.Is(err, ErrRefused) for a *RefusedError.
	ErrRefused = errors.New("version refused")
	// ErrDigestMismatch: a file's content does not have the digest SHA256SUMS gives.
	ErrDigestMismatch = errors.New("digest mismatch")
	// ErrMissingFile: SHA256SUMS lists a file the store does not hold.
	ErrMissingFile = errors.New("file listed in SHA256SUMS is missing")
	// ErrUnlistedFile: the version holds a file SHA256SUMS does not list, which
	// nothing would verify.
	ErrUnlistedFile = errors.New("file not listed in SHA256SUMS")
	// ErrMalformedSums: SHA256SUMS is not sha256sum's output.
	ErrMalformedSums = errors.New("malformed SHA256SUMS")
	// ErrNoDigests: the version has no SHA256SUMS and Options.RequireDigests is set.
	ErrNoDigests = errors.New("no SHA256SUMS, and digests are required")
	// ErrNoConfig: the version's listing is stable but holds no model.yaml.
	ErrNoConfig = errors.New("no model.yaml")
)

// ErrLocked: another process uses the cache directory. Two mirrors writing one copy
// would undo each other's swaps.
var ErrLocked = errors.New("cache directory in use by another process")

// ErrClosed: Sync after Close, when another process may hold the cache directory.
var ErrClosed = errors.New("mirror closed")

// RefusedError is why a version was not taken. Its fields are what an operator needs
// to find the fault: the file and, for a mismatch, both digests.
type RefusedError struct {
	Model, Version string
	// Kind is one of the Err* refusals above, or with Options.Keys one of
	// signature.ErrUnsigned, ErrBadSignature and ErrMalformed.
	Kind error
	// File is the file at fault, relative to the version's directory; "" when the
	// fault is the version's (no SHA256SUMS, say).
	File string
	// Expected and Found are hex SHA-256 digests, for ErrDigestMismatch.
	Expected, Found string
	// Detail says more, for ErrMalformedSums (the line at fault) and the like.
	Detail string
}

func (e *RefusedError) Error() string {
	s := e.Model + "/" + e.Version + ": "
	if e.File != "" {
		s += e.File + ": "
	}
	s += e.Kind.Error()
	if e.Expected != "" || e.Found != "" {
		s += fmt.Sprintf(": SHA256SUMS says %s, the store's file has %s", e.Expected, e.Found)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is makes errors.Is(err, ErrRefused) true for every RefusedError.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Unwrap is the kind: errors.Is(err, ErrDigestMismatch).
func (e *RefusedError) Unwrap() error { return e.Kind }
