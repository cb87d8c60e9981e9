package listen

import (
	"context"
	"net"
)

// TCP listens on addr with a plain TCP socket. Go listens with Multipath TCP by
// default where the kernel has it, and Linux refuses socket filters on an MPTCP
// socket, which Quiesce needs; a server behind a load balancer gains nothing from
// MPTCP, whose clients fall back to TCP anyway.
func TCP(addr string) (net.Listener, error) {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	return lc.Listen(context.Background(), "tcp", addr)
}
