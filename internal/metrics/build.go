package metrics

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
)

// buildInfo is inferd_build_info: a constant 1 whose labels say what runs. The ONNX
// Runtime version is read at each scrape, since the library loads after start (or
// never, without ONNX models).
type buildInfo struct {
	desc            *prometheus.Desc
	version, commit string
	onnxRuntime     func() string
}

// BuildInfo registers inferd_build_info on reg. onnxRuntime returns the loaded ONNX
// Runtime's version, "" while none is loaded (reported as "none").
func BuildInfo(reg prometheus.Registerer, version, commit string, onnxRuntime func() string) {
	reg.MustRegister(&buildInfo{
		desc: prometheus.NewDesc(namespace+"_build_info",
			"Always 1; the labels say which build runs: inferd version and commit, Go version, and the ONNX Runtime version loaded (none until one is).",
			[]string{"version", "commit", "goversion", "onnxruntime_version"}, nil),
		version: version, commit: commit, onnxRuntime: onnxRuntime,
	})
}

func (b *buildInfo) Describe(ch chan<- *prometheus.Desc) { ch <- b.desc }

func (b *buildInfo) Collect(ch chan<- prometheus.Metric) {
	ort := b.onnxRuntime()
	if ort == "" {
		ort = "none"
	}
	ch <- prometheus.MustNewConstMetric(b.desc, prometheus.GaugeValue, 1, b.version, b.commit, runtime.Version(), ort)
}
