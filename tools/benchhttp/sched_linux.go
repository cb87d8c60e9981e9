package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

func schedSet(tid int, rt bool) error {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
	if rt {
		attr.Policy, attr.Priority = unix.SCHED_RR, rtPriority
	}
	err := unix.SchedSetAttr(tid, &attr, 0)
	if errors.Is(err, unix.ESRCH) { // the thread ended meanwhile
		return os.ErrNotExist
	}
	return err
}
