package listen

import (
	"net"
	"net/netip"
	"sync/atomic"
)

// conn is an accepted connection: closing it gives its place back, and its first
// read tells the Listener it has started to send.
type conn struct {
	net.Conn
	l      *Listener
	addr   netip.Addr  // the peer address it is counted under; invalid: none
	fresh  atomic.Bool // nothing read yet
	closed atomic.Bool
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.fresh.Load() && c.fresh.CompareAndSwap(true, false) {
		c.l.unread.Add(-1)
	}
	return n, err
}

// Close may be called more than once (net/http does, from more than one goroutine);
// the place is given back once.
func (c *conn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.l.release(c)
	}
	return c.Conn.Close()
}

// CloseWrite keeps the TCP half-close net/http uses after some answers, which it finds
// by this method.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
