package main

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIsolate puts the test's own threads under SCHED_RR and back, where the test may
// (CAP_SYS_NICE); where it may not, isolate must say so, for the run to report it.
func TestIsolate(t *testing.T) {
	policy := func() uint32 {
		t.Helper()
		a, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return a.Policy
	}
	restore, err := isolate([]int{os.Getpid()})
	if errors.Is(err, unix.EPERM) {
		t.Logf("not permitted here: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := policy(); got != unix.SCHED_RR {
		t.Errorf("isolated: policy %d, want SCHED_RR (%d)", got, unix.SCHED_RR)
	}
	restore()
	if got := policy(); got != unix.SCHED_NORMAL {
		t.Errorf("restored: policy %d, want SCHED_NORMAL (%d)", got, unix.SCHED_NORMAL)
	}
}
