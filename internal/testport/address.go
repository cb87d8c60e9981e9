package testport

import (
	"net"
	"net/netip"
	"testing"
)

// OwnAddress returns an address of one of this machine's interfaces that is neither
// loopback nor link-local (which needs a zone to be dialed), IPv4 first: where a test
// listens to show what reaches, or must not reach, the machine by an address other
// than loopback. On a machine without one the test is skipped.
func OwnAddress(tb testing.TB) netip.Addr {
	tb.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		tb.Fatal(err)
	}
	var v6 netip.Addr
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		if !ok || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
			continue
		}
		if ip = ip.Unmap(); ip.Is4() {
			return ip
		}
		if !v6.IsValid() {
			v6 = ip
		}
	}
	if !v6.IsValid() {
		tb.Skip("this machine has no address but loopback and link-local ones")
	}
	return v6
}
