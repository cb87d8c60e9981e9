package listen

// headroom is the file descriptors DefaultMax leaves to the process's own files: the
// Redis connections, model files, the OTLP exporter's connections, logs. They are
// well under a hundred; the rest covers what a future version opens, and an
// operator's attached profiler.
const headroom = 1024

// fallbackMax is the cap where the descriptor limit cannot be read.
const fallbackMax = 10000

// DefaultMax is MAX_CONNECTIONS's default: the file descriptor limit (RLIMIT_NOFILE,
// which Go raises to its hard limit at start) less headroom, and at most half of
// it for small limits. Past it, accept(2) would fail with "too many open files", and
// net/http would back off from accepting for up to a second at a time, every client
// waiting, health probes included; below it, a connection past the cap costs one
// accept and one close.
func DefaultMax() int {
	n, ok := fileLimit()
	if !ok {
		return fallbackMax
	}
	return maxFor(n)
}

// maxFor is DefaultMax under a descriptor limit of n.
func maxFor(n int64) int { return int(max(n-min(headroom, n/2), 1)) }
