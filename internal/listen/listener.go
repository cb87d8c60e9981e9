package listen

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
)

// Reason says which cap refused a connection: it is the setting's name in lower case,
// the label value of inferd_connections_refused_total.
type Reason string

const (
	ReasonMax        Reason = "max_connections"
	ReasonPerAddress Reason = "max_connections_per_address"
)

// Reasons are every Reason, for counters that start at zero.
var Reasons = []Reason{ReasonMax, ReasonPerAddress}

// Options are the caps. Zero values are documented defaults.
type Options struct {
	// Max caps the connections open at once (MAX_CONNECTIONS). 0: DefaultMax(), what
	// the file descriptor limit leaves once the process's own files are counted.
	Max int
	// MaxPerAddress caps the connections open at once from one peer IP address
	// (MAX_CONNECTIONS_PER_ADDRESS). 0: half of Max, so that one address cannot take
	// every connection. A proxy's clients all come from its address: the cap counts
	// the peer of the TCP connection, since no header has been read when it applies.
	MaxPerAddress int
	// Refused, when set, is told of every connection closed because of a cap. It runs
	// on the accepting goroutine: it must be quick.
	Refused func(Reason)
}

// Listener is a net.Listener whose Accept closes, and does not return, the
// connections past a cap. Its connections must be closed through the net.Conn it
// returns, which gives their place back.
type Listener struct {
	net.Listener
	max, perAddr int64
	refused      func(Reason)

	open   atomic.Int64 // connections accepted and not yet closed
	unread atomic.Int64 // of those, the ones nothing has been read from yet

	mu     sync.Mutex
	byAddr map[netip.Addr]int64 // open connections by peer address; none at zero
}

// New wraps ln with the caps of opts.
func New(ln net.Listener, opts Options) *Listener {
	if opts.Max <= 0 {
		opts.Max = DefaultMax()
	}
	if opts.MaxPerAddress <= 0 {
		opts.MaxPerAddress = max(opts.Max/2, 1)
	}
	l := &Listener{Listener: ln, max: int64(opts.Max), perAddr: int64(opts.MaxPerAddress), refused: opts.Refused}
	// A per-address cap at or above the whole one could never refuse anything first.
	if l.perAddr < l.max {
		l.byAddr = map[netip.Addr]int64{}
	}
	return l
}

// Max and MaxPerAddress are the caps in force, defaults applied.
func (l *Listener) Max() int           { return int(l.max) }
func (l *Listener) MaxPerAddress() int { return int(l.perAddr) }

// Open is the number of connections open now.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Accept returns the next connection within the caps. One past a cap is closed at
// once, before anything is read from it (no answer: which request it would carry is
// not known yet), and Accept goes on to the next.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr, reason := l.admit(c)
		if reason != "" {
			// Counted before the close, so whoever sees the close also sees the count.
			if l.refused != nil {
				l.refused(reason)
			}
			_ = c.Close()
			continue
		}
		l.unread.Add(1)
		wc := &conn{Conn: c, l: l, addr: addr}
		wc.fresh.Store(true)
		return wc, nil
	}
}

// admit counts c in, under its peer address when there is a per-address cap (the
// address is then valid), or says which cap it is past.
func (l *Listener) admit(c net.Conn) (netip.Addr, Reason) {
	if l.open.Add(1) > l.max {
		l.open.Add(-1)
		return netip.Addr{}, ReasonMax
	}
	if l.byAddr == nil {
		return netip.Addr{}, ""
	}
	addr, ok := peer(c)
	if !ok {
		return netip.Addr{}, ""
	}
	l.mu.Lock()
	n := l.byAddr[addr]
	if n >= l.perAddr {
		l.mu.Unlock()
		l.open.Add(-1)
		return netip.Addr{}, ReasonPerAddress
	}
	l.byAddr[addr] = n + 1
	l.mu.Unlock()
	return addr, ""
}

// release gives the place of a closed connection back.
func (l *Listener) release(c *conn) {
	l.open.Add(-1)
	if c.fresh.CompareAndSwap(true, false) {
		l.unread.Add(-1)
	}
	if !c.addr.IsValid() {
		return
	}
	l.mu.Lock()
	if n := l.byAddr[c.addr] - 1; n > 0 {
		l.byAddr[c.addr] = n
	} else {
		delete(l.byAddr, c.addr)
	}
	l.mu.Unlock()
}

// peer is c's remote IP address; an IPv4 address a dual-stack socket reports as
// IPv6 counts as the IPv4 one. Connections that are not TCP have none.
func peer(c net.Conn) (netip.Addr, bool) {
	ta, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return netip.Addr{}, false
	}
	a, ok := netip.AddrFromSlice(ta.IP)
	return a.Unmap(), ok
}
