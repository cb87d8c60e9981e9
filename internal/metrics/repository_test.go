package metrics_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/mirror"
	"github.com/inferd/inferd/internal/store"
)

// TestRepository: each poll adds its bytes, cache hits and errors by reason; the last
// success and the refusals are those of the last poll; a failed poll keeps the last
// success it reports; every outcome and the usual reasons start at zero.
func TestRepository(t *testing.T) {
	reg := prometheus.NewRegistry()
	r := metrics.New(reg).ObserveRepository(30 * time.Second)
	if n := testutil.CollectAndCount(reg, "inferd_repository_sync_errors_total"); n < 10 {
		t.Errorf("%d reasons start at zero, want every usual one", n)
	}
	ok := time.Unix(1_700_000_000, 0)
	refusal := mirror.Refusal{Err: &mirror.RefusedError{Model: "iris", Version: "v3", Kind: mirror.ErrDigestMismatch}, New: true}
	r.Polled(mirror.Result{LastSuccess: ok, BytesDownloaded: 1000, CacheHits: 2, CacheBytes: 5000,
		Refused: []mirror.Refusal{refusal}, Errors: map[string]int{"digest_mismatch": 1}})
	r.Polled(mirror.Result{LastSuccess: ok, Err: errors.Join(store.ErrUnavailable), BytesDownloaded: 24,
		Refused: []mirror.Refusal{{Err: refusal.Err}}, Errors: map[string]int{"unavailable": 1}})
	want := `
# HELP inferd_repository_cache_hits_total Files a poll needed and found in MODEL_CACHE_DIR, by their digest, without reading them from the store.
# TYPE inferd_repository_cache_hits_total counter
inferd_repository_cache_hits_total 2
# HELP inferd_repository_downloaded_bytes_total Bytes read from the model repository's store, retries included.
# TYPE inferd_repository_downloaded_bytes_total counter
inferd_repository_downloaded_bytes_total 1024
# HELP inferd_repository_last_success_timestamp_seconds Unix time of the model repository's last sync that succeeded, of this process or, as the cache's state says, of one before it on the same MODEL_CACHE_DIR (to within a minute); 0 if none ever did. time() minus it is how stale the copy served may be.
# TYPE inferd_repository_last_success_timestamp_seconds gauge
inferd_repository_last_success_timestamp_seconds 1.7e+09
# HELP inferd_repository_poll_interval_seconds REPOSITORY_POLL_INTERVAL: how often the model repository is polled; 0 when it is synced at start only.
# TYPE inferd_repository_poll_interval_seconds gauge
inferd_repository_poll_interval_seconds 30
# HELP inferd_repository_versions_refused Model versions the last poll refused (a file that does not match SHA256SUMS, say): each is listed with its reason in the repository index, and what was served of it before serves on.
# TYPE inferd_repository_versions_refused gauge
inferd_repository_versions_refused 1
`
	names := []string{"inferd_repository_cache_hits_total", "inferd_repository_downloaded_bytes_total", "inferd_repository_last_success_timestamp_seconds",
		"inferd_repository_poll_interval_seconds", "inferd_repository_versions_refused"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	for sample, want := range map[string]float64{`success`: 1, `failure`: 1} {
		if got := counterValue(t, reg, "inferd_repository_syncs_total", map[string]string{"outcome": sample}); got != want {
			t.Errorf("syncs{outcome=%s} = %v, want %v", sample, got, want)
		}
	}
	for reason, want := range map[string]float64{"digest_mismatch": 1, "unavailable": 1, "denied": 0} {
		if got := counterValue(t, reg, "inferd_repository_sync_errors_total", map[string]string{"reason": reason}); got != want {
			t.Errorf("errors{reason=%s} = %v, want %v", reason, got, want)
		}
	}
}
