package signature

import "errors"

// The errors of this package; each error it returns wraps one of them.
var (
	// ErrUnsigned: there is no signature to check where one is required.
	ErrUnsigned = errors.New("not signed")
	// ErrBadSignature: the signature is well formed, but no configured key made it
	// over this content (another key signed, or the content changed since).
	ErrBadSignature = errors.New("signature does not verify")
	// ErrMalformed: the signature file is not one cosign writes.
	ErrMalformed = errors.New("malformed signature")
	// ErrKey: the keys file holds no usable public key, or something else.
	ErrKey = errors.New("not a public key cosign verifies with")
)
