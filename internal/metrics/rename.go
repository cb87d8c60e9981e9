package metrics

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// renamed re-exports some gauges of another collector under new names: asynq's queue
// collector names two gauges like counters (asynq_tasks_enqueued_total,
// asynq_queue_paused_total), which `promtool check metrics` rejects. Other metrics
// pass through untouched. It is an unchecked collector: it describes nothing, since
// the new descriptions are made from the first metric of each name.
type renamed struct {
	inner prometheus.Collector
	names map[string]string // old name -> new name

	mu    sync.Mutex
	descs map[*prometheus.Desc]*prometheus.Desc // inner's -> renamed; nil: keep
}

// Renamed wraps c so that its gauges named like a key of names are exported under
// the value instead.
func Renamed(c prometheus.Collector, names map[string]string) prometheus.Collector {
	return &renamed{inner: c, names: names, descs: map[*prometheus.Desc]*prometheus.Desc{}}
}

func (r *renamed) Describe(chan<- *prometheus.Desc) {}

func (r *renamed) Collect(ch chan<- prometheus.Metric) {
	in := make(chan prometheus.Metric)
	go func() { r.inner.Collect(in); close(in) }()
	for m := range in {
		var pb dto.Metric
		if m.Write(&pb) != nil || pb.Gauge == nil {
			ch <- m
			continue
		}
		desc := r.desc(m.Desc(), &pb)
		if desc == nil {
			ch <- m
			continue
		}
		values := make([]string, len(pb.Label))
		for i, l := range pb.Label {
			values[i] = l.GetValue()
		}
		nm, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, pb.Gauge.GetValue(), values...)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(desc, err)
			continue
		}
		ch <- nm
	}
}

// desc returns the renamed description of old, made once from the labels of its
// first metric (in pb's order, which NewConstMetric then follows), or nil.
func (r *renamed) desc(old *prometheus.Desc, pb *dto.Metric) *prometheus.Desc {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.descs[old]; ok {
		return d
	}
	var d *prometheus.Desc
	s := old.String() // the one place client_golang shows a Desc's name
	for from, to := range r.names {
		if strings.Contains(s, `fqName: "`+from+`"`) {
			labels := make([]string, len(pb.Label))
			for i, l := range pb.Label {
				labels[i] = l.GetName()
			}
			help := ""
			if i := strings.Index(s, `help: "`); i >= 0 {
				help, _, _ = strings.Cut(s[i+len(`help: "`):], `"`)
			}
			d = prometheus.NewDesc(to, help, labels, nil)
		}
	}
	r.descs[old] = d
	return d
}
