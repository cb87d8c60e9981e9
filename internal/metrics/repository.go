package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/mirror"
)

// Repository is the metrics of a synced model repository (a bucket, or a polled
// directory): its polls, what they read and what they refused. It implements
// mirror.Observer.
type Repository struct {
	lastSuccess prometheus.Gauge
	syncs       *prometheus.CounterVec
	errors      *prometheus.CounterVec
	downloaded  prometheus.Counter
	cacheHits   prometheus.Counter
	cacheBytes  prometheus.Gauge
	refused     prometheus.Gauge
	interval    prometheus.Gauge
}

var _ mirror.Observer = (*Repository)(nil)

// syncReasons are the reasons of sync errors started at zero: the store's answers a
// poll fails with, and the refusals a version gets (mirror.Reason's words).
var syncReasons = []string{
	"unavailable", "denied", "not_found", "changed", "local",
	"digest_mismatch", "missing_file", "unlisted_file", "malformed_sums", "no_digests", "no_config",
	"unsigned", "bad_signature", "malformed_signature",
}

// ObserveRepository registers the metrics of a synced repository polled every
// interval (0: at start only). Only a process that syncs one calls it: a directory
// read as it is has no polls, and a last success of 0 would read as one that failed
// since 1970.
func (m *Metrics) ObserveRepository(interval time.Duration) *Repository {
	r := &Repository{
		lastSuccess: gauge("repository_last_success_timestamp_seconds",
			"Unix time of the model repository's last sync that succeeded, of this process or, as the cache's state says, of one before it on the same MODEL_CACHE_DIR (to within a minute); 0 if none ever did. time() minus it is how stale the copy served may be."),
		syncs: counterVec("repository_syncs_total",
			"Polls of the model repository by outcome: success (the listing read, every version that changed copied or refused), failure (the poll is tried again at the next).",
			"outcome"),
		errors: counterVec("repository_sync_errors_total",
			"Failures of polls and refusals of versions by reason: the store's answer (unavailable, denied, not_found, changed), local (the disk's), or why a version was refused (digest_mismatch, missing_file, unlisted_file, malformed_sums, no_digests, no_config; with MODEL_SIGNING_KEY unsigned, bad_signature, malformed_signature).",
			"reason"),
		downloaded: counter("repository_downloaded_bytes_total",
			"Bytes read from the model repository's store, retries included."),
		cacheHits: counter("repository_cache_hits_total",
			"Files a poll needed and found in MODEL_CACHE_DIR, by their digest, without reading them from the store."),
		cacheBytes: gauge("repository_cache_bytes",
			"Bytes MODEL_CACHE_DIR's files hold after the last poll."),
		refused: gauge("repository_versions_refused",
			"Model versions the last poll refused (a file that does not match SHA256SUMS, say): each is listed with its reason in the repository index, and what was served of it before serves on."),
		interval: gauge("repository_poll_interval_seconds",
			"REPOSITORY_POLL_INTERVAL: how often the model repository is polled; 0 when it is synced at start only."),
	}
	m.reg.MustRegister(r.lastSuccess, r.syncs, r.errors, r.downloaded, r.cacheHits, r.cacheBytes, r.refused, r.interval)
	r.interval.Set(interval.Seconds())
	for _, o := range []string{"success", "failure"} {
		r.syncs.WithLabelValues(o)
	}
	for _, reason := range syncReasons {
		r.errors.WithLabelValues(reason)
	}
	return r
}

// Polled implements mirror.Observer.
func (r *Repository) Polled(res mirror.Result) {
	if !res.LastSuccess.IsZero() {
		r.lastSuccess.Set(float64(res.LastSuccess.UnixNano()) / 1e9)
	}
	outcome := "success"
	if res.Err != nil {
		outcome = "failure"
	}
	r.syncs.WithLabelValues(outcome).Inc()
	for reason, n := range res.Errors {
		r.errors.WithLabelValues(reason).Add(float64(n))
	}
	r.downloaded.Add(float64(res.BytesDownloaded))
	r.cacheHits.Add(float64(res.CacheHits))
	r.cacheBytes.Set(float64(res.CacheBytes))
	r.refused.Set(float64(len(res.Refused)))
}
