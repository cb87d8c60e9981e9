//go:build unix

package listen

import (
	"math"
	"syscall"
)

// fileLimit is the process's soft RLIMIT_NOFILE.
func fileLimit() (int64, bool) {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil || rl.Cur == 0 {
		return 0, false
	}
	return int64(min(rl.Cur, math.MaxInt32)), true
}
