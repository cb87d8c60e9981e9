package main_test

import (
	"testing"
	"time"
)

// waitUntil polls cond until it holds, failing the test after within. These tests
// drive the built binary over real sockets, which a synctest bubble cannot wait on,
// so they wait on what they can observe rather than for a fixed time.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
	}
}
