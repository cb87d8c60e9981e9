package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// rtPriority is the real-time priority of an isolated measurement: low among
// real-time ones, so that the kernel's own real-time threads still come first.
const rtPriority = 5

// schedShared and schedIsolated say how a report's measurements were scheduled.
const (
	schedShared   = "the default scheduler (CFS), shared with whatever else runs on the machine"
	schedIsolated = "SCHED_RR at priority 5 for the load generator and the measured servers (`-isolate`): other processes' time slices do not enter the latencies"
)

// isolate puts every thread of the processes pids under SCHED_RR for one
// measurement, and restore puts them back under the default scheduler. On a machine
// of two cores shared with other work (a build, another test run), the default
// scheduler hands the CPU to those processes in slices of milliseconds: a request
// whose server thread waits out a slice takes that long, and the p99 of even a bare
// net/http server grows threefold. Real-time threads run before any other, so the
// latencies measured are the servers' own. Threads started later inherit the policy
// of the thread that starts them. The kernel keeps a twentieth of every second for
// the rest (sched_rt_runtime_us), so nothing else starves.
func isolate(pids []int) (restore func(), err error) {
	var done []int
	restore = func() {
		for _, pid := range done {
			_ = setSched(pid, false)
		}
	}
	for _, pid := range pids {
		if err := setSched(pid, true); err != nil {
			restore()
			return nil, err
		}
		done = append(done, pid)
	}
	return restore, nil
}

// setSched sets the policy of every thread of process pid: SCHED_RR when rt, else
// the default one.
func setSched(pid int, rt bool) error {
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return fmt.Errorf("listing the threads of process %d: %w", pid, err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := schedSet(tid, rt); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("scheduling thread %d of process %d: %w", tid, pid, err)
		}
	}
	return nil
}
