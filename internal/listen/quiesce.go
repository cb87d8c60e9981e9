package listen

import (
	"context"
	"fmt"
	"time"
)

// Closing a listening socket resets every connection the kernel has completed and no
// Accept has taken yet (its accept queue), and every handshake under way: their
// clients, which sent their request as soon as the handshake ended, read "connection
// reset by peer" and cannot know whether it was handled. net/http's Shutdown also
// drops, unanswered, a request it reads after it began. Quiesce closes both gaps
// before Shutdown: new connections are refused first, and the socket closes only once
// every connection it took has been accepted and has sent its request.
const (
	// handshakes is how long a handshake under way when new ones are refused may take
	// to end: a round trip, far below this for a load balancer's or any client's.
	handshakes = 500 * time.Millisecond
	// quiesceMax bounds the wait for clients that connected and send nothing (a
	// pre-dialled connection, a slow or hostile client): net/http closes those.
	quiesceMax = 2 * time.Second
	pollEvery  = 10 * time.Millisecond
)

// Quiesce makes the kernel refuse new connections on l's socket (they wait for their
// SYN's retransmission, then are refused once the socket closes: ECONNREFUSED, nothing
// sent), keeps accepting those it had already taken, and returns once none is left
// for Accept, and every connection accepted has sent something (its request), for at
// least two looks in a row; or after quiesceMax; or when ctx ends. Serving must go on
// meanwhile: the caller then closes the listener (http.Server.Shutdown).
//
// It needs Linux (a socket filter that drops SYNs) and a plain TCP listener (see TCP);
// elsewhere it returns an error at once, and closing the socket may reset connections
// as before.
func (l *Listener) Quiesce(ctx context.Context) error {
	if err := refuseSYN(l.Listener); err != nil {
		return fmt.Errorf("refusing new connections: %w", err)
	}
	start := time.Now()
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	quiet := 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		waited := time.Since(start)
		if waited >= quiesceMax {
			return nil
		}
		queued, err := acceptQueue(l.Listener)
		if err != nil {
			return nil // new connections are refused all the same; the queue is unseen
		}
		if queued == 0 && l.unread.Load() == 0 {
			quiet++
		} else {
			quiet = 0
		}
		if quiet >= 2 && waited >= handshakes {
			return nil
		}
	}
}
