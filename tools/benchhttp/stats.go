package main

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Result is one case driven at one connection count.
type Result struct {
	Case  string
	Conns int
	// NA, when set, says why the case could not run (a model that is not served, say):
	// the row is reported, not failed.
	NA       string
	Requests int
	Items    int
	Errors   int
	// FirstError is what the first failed request said, for the report's notes.
	FirstError    string
	Elapsed       time.Duration
	P50, P90, P99 time.Duration
	// ServerCPU is the CPU time the case's server processes used while it was measured
	// (for queue mode: inferd, both workers and redis-server); ClientCPU is the load
	// generator's own. Both are 0 where they could not be read.
	ServerCPU, ClientCPU time.Duration
	// Payload is the request body's size in bytes, where the report shows MB/s; 0
	// elsewhere.
	Payload int
}

// PayloadMBPerSec is request body bytes per second of wall time, in MB (10^6 bytes).
func (r Result) PayloadMBPerSec() float64 { return float64(r.Payload) * r.ReqPerSec() / 1e6 }

// ServerCPUPerReq is the servers' CPU time per completed request: unlike a rate, it
// does not depend on how much of the machine the load generator left them.
func (r Result) ServerCPUPerReq() time.Duration { return perReq(r.ServerCPU, r.Requests) }

// ClientCPUPerReq is the load generator's CPU time per completed request.
func (r Result) ClientCPUPerReq() time.Duration { return perReq(r.ClientCPU, r.Requests) }

func perReq(d time.Duration, n int) time.Duration {
	if n <= 0 {
		return 0
	}
	return d / time.Duration(n)
}

// ReqPerSec is completed requests (or jobs) per second of wall time.
func (r Result) ReqPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// ItemsPerSec counts what the model computed: a batch of 64 is 64 items.
func (r Result) ItemsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Items) / r.Elapsed.Seconds()
}

// Percentile is the nearest-rank percentile (p in 0..100) of samples, sorting them in
// place. Every sample is kept rather than bucketed: a few seconds at tens of thousands
// of requests per second is a few megabytes, and the answer is then exact.
func Percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	if !slices.IsSorted(samples) {
		slices.Sort(samples)
	}
	rank := int(math.Ceil(p/100*float64(len(samples)))) - 1
	return samples[max(0, min(rank, len(samples)-1))]
}

// Median is the result of median throughput among rounds of one case and connection
// count (the lower middle of an even number), whole, so that its rates and latencies
// are those of one measurement; its errors are every round's, so that a failure in
// another round is not hidden.
func Median(rounds []Result) Result {
	sorted := slices.Clone(rounds)
	slices.SortStableFunc(sorted, func(a, b Result) int { return cmp.Compare(a.ReqPerSec(), b.ReqPerSec()) })
	m := sorted[(len(sorted)-1)/2]
	m.Errors = 0
	for _, r := range rounds {
		m.Errors += r.Errors
		if m.FirstError == "" {
			m.FirstError = r.FirstError
		}
	}
	return m
}
