package listen

import "syscall"

const syscallECONNREFUSED = syscall.ECONNREFUSED
