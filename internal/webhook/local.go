package webhook

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// localEvery bounds how stale the machine's addresses may be: interfaces come and go
// (a container's, an address from DHCP), but not between two dials.
const localEvery = 5 * time.Second

// machine caches the addresses of this machine's interfaces.
var machine struct {
	mu   sync.Mutex
	read time.Time
	set  map[netip.Addr]bool
}

// local reports whether ip is one of this machine's own addresses: an address of one
// of its interfaces, a loopback address or the unspecified one (which reaches the
// machine itself). A callback there would reach the server's own services (its
// metrics, a Redis beside it) whatever range the address is in.
func local(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	machine.mu.Lock()
	defer machine.mu.Unlock()
	if now := time.Now(); machine.set == nil || now.Sub(machine.read) >= localEvery {
		// On an error the last addresses read stay: better stale than none.
		if addrs, err := net.InterfaceAddrs(); err == nil || machine.set == nil {
			set := make(map[netip.Addr]bool, len(addrs))
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					if ip, ok := netip.AddrFromSlice(n.IP); ok {
						set[ip.Unmap()] = true
					}
				}
			}
			machine.set = set
		}
		machine.read = now
	}
	return machine.set[ip]
}
