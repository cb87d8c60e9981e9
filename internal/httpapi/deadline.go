package httpapi

import (
	"net"
	"time"
)

// CoalescedWriteDeadlines wraps ln so that the write deadline of each connection is
// re-armed at most once per slack instead of twice per request.
//
// With a WriteTimeout, net/http arms a write deadline as each request's headers are
// read and clears it after each answer: a runtime timer modified and deleted, and
// three clock reads, per request (see docs/design.md#coalesced-write-deadlines). Here a deadline asked for is armed
// slack later than asked and left armed while later requests ask for one before it,
// and a clear is dropped: between two answers nothing is written, and the next
// request asks for its deadline before its handler writes. A connection that stops
// reading is cut off at least WriteTimeout and at most WriteTimeout plus slack after
// its request, so slack is a fraction of WriteTimeout. Only net/http's own calls are
// coalesced this way: no handler of this server sets deadlines itself.
func CoalescedWriteDeadlines(ln net.Listener, slack time.Duration) net.Listener {
	return deadlineListener{Listener: ln, slack: slack}
}

type deadlineListener struct {
	net.Listener
	slack time.Duration
}

func (l deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &deadlineConn{Conn: c, slack: l.slack}, nil
}

// deadlineConn's deadline methods are called by the goroutine serving the connection
// alone (net/http's background read only reads), so armed needs no lock.
type deadlineConn struct {
	net.Conn
	slack time.Duration
	armed time.Time // the write deadline the connection has; zero: none
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	if t.IsZero() || (!c.armed.IsZero() && !c.armed.Before(t)) {
		return nil
	}
	c.armed = t.Add(c.slack)
	return c.Conn.SetWriteDeadline(c.armed)
}

// SetDeadline is exact: net/http calls it when a handler takes the connection over,
// which then has no deadline until its new owner sets one.
func (c *deadlineConn) SetDeadline(t time.Time) error {
	c.armed = t
	return c.Conn.SetDeadline(t)
}

// CloseWrite keeps net/http's half-close, which it finds by this method.
func (c *deadlineConn) CloseWrite() error { return closeWrite(c.Conn) }
