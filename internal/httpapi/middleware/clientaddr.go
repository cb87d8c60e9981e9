package middleware

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the networks whose word on a request's origin is believed
// (TRUSTED_PROXIES): load balancers, ingresses and sidecars that append the address
// they received a request from to X-Forwarded-For or Forwarded.
type Proxies []netip.Prefix

func (p Proxies) trusts(a netip.Addr) bool {
	for _, n := range p {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddr is the address a request comes from. It is the peer's, unless the peer is
// a trusted proxy: then it is the nearest hop of the request's Forwarded (or, without
// one, X-Forwarded-For) chain that is not itself a trusted proxy. Read from the right,
// as each proxy appends, so that what a client writes into those headers itself is
// never believed: a client can only add hops in front of the ones the proxies added.
func (p Proxies) ClientAddr(r *http.Request) string {
	peer := peerAddr(r.RemoteAddr)
	if len(p) == 0 || !peer.IsValid() || !p.trusts(peer) {
		return addrString(peer, r.RemoteAddr)
	}
	hops := forwardedFor(r.Header)
	if hops == nil {
		hops = xForwardedFor(r.Header)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := hopAddr(hops[i])
		if !a.IsValid() {
			// An unknown or obfuscated hop ends what can be believed; the hop after it
			// (a trusted proxy) is the best known origin.
			break
		}
		client = a
		if !p.trusts(a) {
			break
		}
	}
	return client.String()
}

// peerAddr is the IP of a RemoteAddr ("host:port"), unmapped from IPv4-in-IPv6.
func peerAddr(remote string) netip.Addr {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			return netip.Addr{}
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			return netip.Addr{}
		}
		return a.Unmap()
	}
	return ap.Addr().Unmap()
}

func addrString(a netip.Addr, remote string) string {
	if a.IsValid() {
		return a.String()
	}
	return remote
}

// xForwardedFor lists the hops of every X-Forwarded-For line, in order.
func xForwardedFor(h http.Header) []string {
	var hops []string
	for _, line := range h.Values("X-Forwarded-For") {
		for hop := range strings.SplitSeq(line, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// forwardedFor lists the for= parameters of every Forwarded element (RFC 7239), in
// order; nil when the request has no Forwarded header. An element without for= is an
// unknown hop ("").
func forwardedFor(h http.Header) []string {
	lines := h.Values("Forwarded")
	if len(lines) == 0 {
		return nil
	}
	var hops []string
	for _, line := range lines {
		for elem := range strings.SplitSeq(line, ",") {
			hop := ""
			for pair := range strings.SplitSeq(elem, ";") {
				name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(name, "for") {
					hop = strings.Trim(value, `"`)
				}
			}
			hops = append(hops, hop)
		}
	}
	return hops
}

// hopAddr reads one hop: an IP, "IP:port", or Forwarded's "[v6]:port"; anything else
// (unknown, _obfuscated names) is no address.
func hopAddr(hop string) netip.Addr {
	if a, err := netip.ParseAddr(strings.Trim(hop, "[]")); err == nil {
		return a.Unmap()
	}
	if ap, err := netip.ParseAddrPort(hop); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}
