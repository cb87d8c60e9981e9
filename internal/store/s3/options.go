package s3

import (
	"net/http"
	"time"
)

// Defaults of Options, and the bounds of the SDK's own client.
const (
	// DefaultAttempts is how many times a request is sent before its error is
	// answered (the SDK's own default): a store refusing connections is told
	// within a second or so.
	DefaultAttempts = 3
	// maxBackoff caps the SDK's jittered, exponential wait between attempts (20 s of
	// its own): a poller tries again at its next poll anyway, and a dead store must
	// be told within seconds.
	maxBackoff = 2 * time.Second
	// connectTimeout bounds a TCP (and TLS) connection to a host that does not
	// answer, which would otherwise take the SDK's 30 s per attempt.
	connectTimeout = 5 * time.Second
	// readTimeout fails a connection silent for that long, in a response's headers
	// or in the middle of a body, rather than let a poll or a download hang on it:
	// S3 answers its first byte within a fraction of that. A store that accepts
	// connections and never answers is told in Attempts times this, plus backoff.
	readTimeout = 10 * time.Second
	// defaultRegion signs the requests to an S3-compatible server when no region is
	// configured: the one such servers answer for unless told otherwise.
	defaultRegion = "us-east-1"
)

// Options tune a Store. The zero value is the SDK's own HTTP client, which gives up
// on a connection after 5 s to connect or 10 s of silence, and DefaultAttempts.
type Options struct {
	// HTTPClient sends the requests (a test's, to count them); nil is the SDK's
	// client. Its timeouts are then the caller's, and AWS_CA_BUNDLE, which the SDK
	// adds to a client of its own only, must not be set.
	HTTPClient *http.Client
	// Attempts is how many times a request that failed with an error worth retrying
	// (a refused or cut connection, a timeout, a 5xx, throttling) is sent in all
	// before the error is answered; 0 is the SDK's AWS_MAX_ATTEMPTS when it is set,
	// else DefaultAttempts; 1 sends each once.
	Attempts int
}
