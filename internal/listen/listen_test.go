package listen

import (
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

func TestMaxFor(t *testing.T) {
	for _, tt := range []struct {
		limit int64
		want  int
	}{
		{1, 1}, {256, 128}, {1024, 512}, {2048, 1024}, {20000, 18976}, {1 << 20, 1<<20 - 1024},
	} {
		if got := maxFor(tt.limit); got != tt.want {
			t.Errorf("maxFor(%d) = %d, want %d", tt.limit, got, tt.want)
		}
	}
	if DefaultMax() < 1 {
		t.Errorf("DefaultMax() = %d", DefaultMax())
	}
}

// server accepts from l until it is closed, holding every connection open; its
// connections are closed at the test's end.
func server(t *testing.T, l net.Listener) *held {
	h := &held{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
		}
	}()
	t.Cleanup(func() { l.Close(); h.closeAll() })
	return h
}

type held struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (h *held) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		c.Close()
	}
	h.conns = nil
}

// dialFrom connects to addr from the loopback address from (any 127/8 address is
// the machine's own on Linux).
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedAtOnce reports whether the server closed c without a byte: a read ends at
// once with EOF or a reset rather than waiting.
func closedAtOnce(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// linuxOnly skips tests that dial from several loopback addresses (Linux routes all
// of 127/8 to the machine) or need the socket filter.
func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
}

func TestCaps(t *testing.T) {
	linuxOnly(t)
	inner, err := TCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	refused := map[Reason]int{}
	l := New(inner, Options{Max: 6, MaxPerAddress: 4, Refused: func(r Reason) {
		mu.Lock()
		refused[r]++
		mu.Unlock()
	}})
	h := server(t, l)
	addr := inner.Addr().String()
	count := func(r Reason) int {
		mu.Lock()
		defer mu.Unlock()
		return refused[r]
	}
	waitOpen := func(n int) {
		t.Helper()
		testkit.Eventually(t, 5*time.Second, func() bool { return l.Open() == n },
			"%s connections open, want %d", func() string { return strconv.Itoa(l.Open()) }, n)
	}

	t.Run("per address", func(t *testing.T) {
		for range 4 {
			dialFrom(t, "127.0.0.1", addr)
		}
		waitOpen(4)
		over := dialFrom(t, "127.0.0.1", addr)
		if !closedAtOnce(over) {
			t.Error("a fifth connection from one address was not closed")
		}
		if got := count(ReasonPerAddress); got != 1 {
			t.Errorf("refused per address: %d, want 1", got)
		}
	})
	t.Run("in all", func(t *testing.T) {
		for range 2 {
			dialFrom(t, "127.0.0.2", addr)
		}
		waitOpen(6)
		over := dialFrom(t, "127.0.0.3", addr)
		if !closedAtOnce(over) {
			t.Error("a seventh connection was not closed")
		}
		if got := count(ReasonMax); got != 1 {
			t.Errorf("refused in all: %d, want 1", got)
		}
	})
	t.Run("places come back", func(t *testing.T) {
		h.closeAll()
		waitOpen(0)
		l.mu.Lock()
		left := len(l.byAddr)
		l.mu.Unlock()
		if left != 0 {
			t.Errorf("%d addresses still counted with no connection open", left)
		}
		for range 4 {
			dialFrom(t, "127.0.0.1", addr)
		}
		waitOpen(4)
	})
}

func TestDefaults(t *testing.T) {
	l := New(nil, Options{Max: 10})
	if l.Max() != 10 || l.MaxPerAddress() != 5 {
		t.Errorf("caps %d and %d per address, want 10 and 5", l.Max(), l.MaxPerAddress())
	}
	if l := New(nil, Options{}); l.Max() != DefaultMax() {
		t.Errorf("cap %d, want DefaultMax() %d", l.Max(), DefaultMax())
	}
	if l := New(nil, Options{Max: 10, MaxPerAddress: 10}); l.byAddr != nil {
		t.Error("a per-address cap at the whole cap still counts addresses")
	}
}

// echoFirst answers each connection's first bytes with "ok" and closes it.
func echoFirst(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 16)
	if n, _ := c.Read(buf); n > 0 {
		c.Write([]byte("ok"))
	}
}

// TestQuiesce fills the kernel's accept queue with connections that have sent their
// request, then quiesces while accepting: every one of them is answered, a connection
// dialled meanwhile does not complete, and once the socket is closed it is refused.
// Without Quiesce, closing the socket resets the queued ones.
func TestQuiesce(t *testing.T) {
	linuxOnly(t)
	const queued = 8
	for _, quiesce := range []bool{true, false} {
		name := map[bool]string{true: "quiesced", false: "closed at once"}[quiesce]
		t.Run(name, func(t *testing.T) {
			inner, err := TCP("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			l := New(inner, Options{Max: 100})
			addr := inner.Addr().String()
			clients := make([]net.Conn, queued)
			for i := range clients {
				clients[i] = dialFrom(t, "127.0.0.1", addr)
				if _, err := clients[i].Write([]byte("GET")); err != nil {
					t.Fatal(err)
				}
			}
			if n, err := acceptQueue(inner); err != nil || n != queued {
				t.Fatalf("accept queue %d (%v), want %d", n, err, queued)
			}
			if !quiesce {
				l.Close()
			} else {
				accepting := make(chan struct{})
				go func() {
					defer close(accepting)
					for {
						c, err := l.Accept()
						if err != nil {
							return
						}
						go echoFirst(c)
					}
				}()
				if err := l.Quiesce(t.Context()); err != nil {
					t.Fatalf("Quiesce: %v", err)
				}
				// A new connection now waits for its SYN's retransmission.
				d := net.Dialer{Timeout: 200 * time.Millisecond}
				if c, err := d.Dial("tcp", addr); err == nil {
					c.Close()
					t.Fatal("a connection dialled after Quiesce completed")
				}
				l.Close()
				<-accepting
				if _, err := net.DialTimeout("tcp", addr, 5*time.Second); !errors.Is(err, syscallECONNREFUSED) {
					t.Errorf("dial after the close: %v, want connection refused", err)
				}
			}
			answered, reset := 0, 0
			for _, c := range clients {
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				b, err := io.ReadAll(c)
				switch {
				case string(b) == "ok":
					answered++
				case err != nil:
					reset++
				}
			}
			if quiesce && answered != queued {
				t.Errorf("%d of %d queued connections answered, %d reset", answered, queued, reset)
			}
			if !quiesce && reset != queued {
				t.Errorf("closing the socket reset %d of %d queued connections; the kernel's behaviour this package works around has changed", reset, queued)
			}
		})
	}
}
