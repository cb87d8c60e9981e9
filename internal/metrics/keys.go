package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Keys are the API server's metrics of its keys: which set is in force and whether
// API_KEYS_FILE could be read. It implements keywatch.Observer.
type Keys struct {
	loaded   prometheus.Gauge
	count    prometheus.Gauge
	failures prometheus.Counter
}

// ObserveKeys registers the metrics of the API keys. Only the server calls it:
// inferd-worker holds no keys, and a 0 there would read as keys loaded in 1970.
func (m *Metrics) ObserveKeys() *Keys {
	k := &Keys{
		loaded: gauge("api_keys_loaded_timestamp_seconds",
			"Unix time at which the API keys in force were read: at start, or by the last reload of API_KEYS_FILE that changed them. time() minus it is the set's age."),
		count: gauge("api_keys",
			"API keys in force."),
		failures: counter("api_keys_reload_failures_total",
			"Readings of API_KEYS_FILE (every KEYS_RELOAD_INTERVAL, or on SIGHUP) that found it unreadable or malformed, and so left the keys in force as they were. It grows for as long as the file stays broken."),
	}
	m.reg.MustRegister(k.loaded, k.count, k.failures)
	return k
}

// KeysLoaded records the keyring put in force.
func (k *Keys) KeysLoaded(at time.Time, n int) {
	k.loaded.Set(float64(at.UnixNano()) / 1e9)
	k.count.Set(float64(n))
}

// KeysReloadFailed counts a reading of the keys file that could not be used.
func (k *Keys) KeysReloadFailed() { k.failures.Inc() }
