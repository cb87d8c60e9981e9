package listen

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// dropSYN is a classic BPF socket filter that drops a TCP segment with SYN set and
// ACK clear, a connection's first, and keeps the rest. On a listening socket it stops
// new handshakes while those under way (their last ACK has no SYN) complete. A socket
// filter sees the segment from its TCP header on: the flags are its byte 13.
var dropSYN = []unix.SockFilter{
	{Code: unix.BPF_LD | unix.BPF_B | unix.BPF_ABS, K: 13},
	{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 0x12}, // SYN | ACK
	{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: 0x02, Jt: 0, Jf: 1},
	{Code: unix.BPF_RET | unix.BPF_K, K: 0},          // drop
	{Code: unix.BPF_RET | unix.BPF_K, K: 0xffffffff}, // keep it whole
}

// refuseSYN attaches dropSYN to ln's socket. Connections accepted later inherit it,
// which costs them nothing: an established connection gets no bare SYN.
func refuseSYN(ln net.Listener) error {
	return control(ln, func(fd int) error {
		prog := unix.SockFprog{Len: uint16(len(dropSYN)), Filter: &dropSYN[0]}
		return unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog)
	})
}

// acceptQueue is the number of connections the kernel completed that no Accept has
// taken yet: TCP_INFO's tcpi_unacked on a listening socket.
func acceptQueue(ln net.Listener) (int, error) {
	var n int
	err := control(ln, func(fd int) error {
		info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		if err == nil {
			n = int(info.Unacked)
		}
		return err
	})
	return n, err
}

// control runs f on ln's socket.
func control(ln net.Listener, f func(fd int) error) error {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return errors.ErrUnsupported
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
