//go:build unix

package mirror

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lock takes the cache directory's lock file, held until unlock or the process's end
// (the kernel drops a dead process's lock, so a crash leaves none behind).
func lock(name string) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
