// Package metrics defines inferd's Prometheus collectors, all prefixed inferd_, on an
// injected prometheus.Registerer. Labels are bounded: operation ids (never raw paths),
// registered model names and versions, status codes and fixed outcome words.
package metrics
