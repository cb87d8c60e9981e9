package testport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowest is the first port tried: above the well-known and most registered services.
const lowest = 10000

// Free returns a port that nothing listens on now, on any address, chosen at random
// below the kernel's ephemeral range when there is room there.
func Free() (int, error) {
	if top := ephemeralStart(); top-lowest >= 1000 {
		for range 200 {
			port := lowest + rand.IntN(top-lowest)
			if l, err := net.Listen("tcp", ":"+strconv.Itoa(port)); err == nil {
				_ = l.Close()
				return port, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("no free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralStart is the first port of the range the kernel picks from, or 0 when it
// is not known (not Linux).
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 0
	}
	return n
}
