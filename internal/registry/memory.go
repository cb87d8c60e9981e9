package registry

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/inferd/inferd/internal/serve"
)

// Memory is what a pipeline's load was measured to take (serve's, named here too).
type Memory = serve.Memory

// ProcessMemory is the process's totals now.
type ProcessMemory struct {
	RSS        int64
	HeapAlloc  int64
	HeapSys    int64
	Sys        int64
	Goroutines int
}

// snapshot is the process's memory at one instant.
type snapshot struct {
	rss  int64
	heap int64
}

// takeSnapshot collects garbage first so that the heap figure counts live objects only.
func takeSnapshot() snapshot {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return snapshot{rss: residentBytes(), heap: int64(ms.HeapAlloc)}
}

func measure(before, after snapshot, artifact int64, exclusive bool) Memory {
	m := Memory{
		ArtifactBytes: artifact,
		RSSDelta:      after.rss - before.rss,
		HeapDelta:     after.heap - before.heap,
		Exclusive:     exclusive,
		MeasuredAt:    time.Now(),
	}
	m.Bytes = max(m.RSSDelta, m.ArtifactBytes+max(m.HeapDelta, 0), 0)
	return m
}

// CurrentProcessMemory reads the process totals.
func CurrentProcessMemory() ProcessMemory {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ProcessMemory{
		RSS:        residentBytes(),
		HeapAlloc:  int64(ms.HeapAlloc),
		HeapSys:    int64(ms.HeapSys),
		Sys:        int64(ms.Sys),
		Goroutines: runtime.NumGoroutine(),
	}
}

// residentBytes reads the resident set size from /proc/self/statm (Linux); elsewhere it
// reports 0 and the estimates fall back to artifact and heap figures.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := bytes.Fields(b)
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
