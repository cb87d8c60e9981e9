package metrics_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/inferd/inferd/internal/metrics"
)

// fixedCollector sends one gauge named like a counter, one counter and one gauge.
type fixedCollector struct{}

var (
	enqueued = prometheus.NewDesc("asynq_tasks_enqueued_total", "Tasks enqueued, by queue and state.", []string{"queue", "state"}, nil)
	done     = prometheus.NewDesc("asynq_tasks_processed_total", "Tasks processed.", []string{"queue"}, nil)
	size     = prometheus.NewDesc("asynq_queue_size", "Tasks in the queue.", []string{"queue"}, nil)
)

func (fixedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- enqueued; ch <- done; ch <- size }
func (fixedCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(enqueued, prometheus.GaugeValue, 3, "inferd", "pending")
	ch <- prometheus.MustNewConstMetric(enqueued, prometheus.GaugeValue, 1, "inferd", "active")
	ch <- prometheus.MustNewConstMetric(done, prometheus.CounterValue, 7, "inferd")
	ch <- prometheus.MustNewConstMetric(size, prometheus.GaugeValue, 4, "inferd")
}

func TestRenamedGauges(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.Renamed(fixedCollector{}, map[string]string{"asynq_tasks_enqueued_total": "asynq_tasks_enqueued"}))
	want := `# HELP asynq_queue_size Tasks in the queue.
# TYPE asynq_queue_size gauge
asynq_queue_size{queue="inferd"} 4
# HELP asynq_tasks_enqueued Tasks enqueued, by queue and state.
# TYPE asynq_tasks_enqueued gauge
asynq_tasks_enqueued{queue="inferd",state="active"} 1
asynq_tasks_enqueued{queue="inferd",state="pending"} 3
# HELP asynq_tasks_processed_total Tasks processed.
# TYPE asynq_tasks_processed_total counter
asynq_tasks_processed_total{queue="inferd"} 7
`
	for range 2 { // the second scrape uses the descriptions made by the first
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
			t.Fatal(err)
		}
	}
}
