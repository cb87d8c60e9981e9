package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name    string
		samples []time.Duration
		p       float64
		want    time.Duration
	}{
		{"none", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of odd count, unsorted", ms(5, 1, 3), 50, 3 * time.Millisecond},
		{"median of even count is the lower middle (nearest rank)", ms(4, 1, 3, 2), 50, 2 * time.Millisecond},
		{"p99 of 100 is the 99th", ms(seq(100)...), 99, 99 * time.Millisecond},
		{"p99 of 1000 is the 990th", ms(seq(1000)...), 99, 990 * time.Millisecond},
		{"p100 is the largest", ms(9, 2, 5), 100, 9 * time.Millisecond},
		{"p0 is the smallest", ms(9, 2, 5), 0, 2 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.samples, tt.p); got != tt.want {
				t.Errorf("Percentile(p%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

// seq is 1..n, reversed, so that Percentile has to sort.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = n - i
	}
	return out
}

func TestResultRates(t *testing.T) {
	tests := []struct {
		name         string
		r            Result
		reqs, itemsS float64
	}{
		{"single items", Result{Requests: 200, Items: 200, Elapsed: 2 * time.Second}, 100, 100},
		{"batches of 64", Result{Requests: 10, Items: 640, Elapsed: time.Second}, 10, 640},
		{"no time", Result{Requests: 10, Items: 10}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.ReqPerSec(); got != tt.reqs {
				t.Errorf("ReqPerSec = %v, want %v", got, tt.reqs)
			}
			if got := tt.r.ItemsPerSec(); got != tt.itemsS {
				t.Errorf("ItemsPerSec = %v, want %v", got, tt.itemsS)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	run := func(reqs int, p50 time.Duration) Result {
		return Result{Requests: reqs, Elapsed: time.Second, P50: p50}
	}
	tests := []struct {
		name   string
		rounds []Result
		want   Result
	}{
		{"one round", []Result{run(5, 1)}, run(5, 1)},
		{"the middle of three, whole", []Result{run(9, 1), run(3, 2), run(6, 3)}, run(6, 3)},
		{"the lower middle of two", []Result{run(9, 1), run(3, 2)}, run(3, 2)},
		{"a case that could not run", []Result{{NA: "not served"}, {NA: "not served"}}, Result{NA: "not served"}},
		{"errors of every round", []Result{run(9, 1), {Requests: 1, Elapsed: time.Second, Errors: 2, FirstError: "EOF"}, run(6, 3)},
			Result{Requests: 6, Elapsed: time.Second, P50: 3, Errors: 2, FirstError: "EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Median(tt.rounds); got != tt.want {
				t.Errorf("Median = %+v, want %+v", got, tt.want)
			}
		})
	}
}
