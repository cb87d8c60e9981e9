package webhook

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// ErrNotAllowed: a callback URL or address that WEBHOOK_ALLOWED_HOSTS does not allow.
var ErrNotAllowed = errors.New("callback not allowed")

// AllowList is WEBHOOK_ALLOWED_HOSTS: the hosts callbacks may go to. Its entries are
// host names ("hooks.example.com"), subdomains ("*.example.com"), addresses and
// networks ("127.0.0.1", "10.0.0.0/8"), and "*" for any host. A host allowed by "*"
// alone must resolve to public addresses: loopback, private, link-local, unspecified
// and multicast addresses are refused unless the host's name or the address's network
// is listed. The zero value allows nothing.
type AllowList struct {
	any      bool
	names    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
	nets     []netip.Prefix
}

// ParseAllowList reads a comma-separated list of entries.
func ParseAllowList(s string) (AllowList, error) {
	var a AllowList
	for e := range strings.SplitSeq(s, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
		case e == "*":
			a.any = true
		case strings.HasPrefix(e, "*."):
			if !hostName(e[2:]) {
				return AllowList{}, fmt.Errorf("%q: want a host name after the *. of a subdomain entry", e)
			}
			a.suffixes = append(a.suffixes, e[1:])
		default:
			if ip, err := netip.ParseAddr(e); err == nil {
				ip = ip.Unmap()
				a.nets = append(a.nets, netip.PrefixFrom(ip, ip.BitLen()))
				continue
			}
			if n, err := netip.ParsePrefix(e); err == nil {
				a.nets = append(a.nets, n.Masked())
				continue
			}
			if !hostName(e) {
				return AllowList{}, fmt.Errorf("%q is not a host name, *.domain, address, network or *", e)
			}
			if a.names == nil {
				a.names = map[string]bool{}
			}
			a.names[strings.TrimSuffix(e, ".")] = true
		}
	}
	return a, nil
}

// hostName reports whether s is spelled as a DNS name.
func hostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// Empty reports whether the list allows nothing: the server takes no callbacks.
func (a AllowList) Empty() bool {
	return !a.any && len(a.names) == 0 && len(a.suffixes) == 0 && len(a.nets) == 0
}

// named reports whether host is listed by name, itself or as a subdomain.
func (a AllowList) named(host string) bool {
	if a.names[host] {
		return true
	}
	for _, suf := range a.suffixes {
		if strings.HasSuffix(host, suf) {
			return true
		}
	}
	return false
}

// listed reports whether ip is in a listed network.
func (a AllowList) listed(ip netip.Addr) bool {
	for _, n := range a.nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// CheckURL refuses, wrapping ErrNotAllowed with what to do about it, a callback URL
// that is not an absolute http(s) URL to an allowed host. It is the check at
// submission; the address dialed is checked again at each delivery.
func (a AllowList) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%w: callback_url is not a URL (%v)", ErrNotAllowed, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w: callback_url must be an absolute http:// or https:// URL", ErrNotAllowed)
	case u.User != nil:
		// Any key may read a job's record, callback URL included.
		return fmt.Errorf("%w: callback_url must not carry a user name or password, which every key reading the job would see; authenticate the callback by its webhook-signature", ErrNotAllowed)
	case u.Hostname() == "":
		return fmt.Errorf("%w: callback_url has no host", ErrNotAllowed)
	case a.Empty():
		return fmt.Errorf("%w: this server takes no callbacks (its operator has not set WEBHOOK_ALLOWED_HOSTS); poll the job instead", ErrNotAllowed)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return a.checkAddr(host, ip.Unmap())
	}
	if a.any || a.named(host) {
		return nil
	}
	return fmt.Errorf("%w: the host %s of callback_url is not in WEBHOOK_ALLOWED_HOSTS; use a host the operator lists there", ErrNotAllowed, host)
}

// checkAddr refuses ip, an address of host, unless the list allows it: in a listed
// network, or public and host allowed, or of a host listed by name.
func (a AllowList) checkAddr(host string, ip netip.Addr) error {
	ip = ip.Unmap()
	if a.listed(ip) {
		return nil
	}
	if kind := special(ip); kind != "" {
		if a.named(host) {
			return nil
		}
		return fmt.Errorf("%w: %s is a %s address, which WEBHOOK_ALLOWED_HOSTS does not list", ErrNotAllowed, ip, kind)
	}
	if a.any || a.named(host) {
		return nil
	}
	return fmt.Errorf("%w: %s is not in WEBHOOK_ALLOWED_HOSTS", ErrNotAllowed, host)
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598), as internal as a
// private range.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// reserved are IPv4 ranges no public host has: IETF protocol assignments, benchmarking
// and the future-use block (broadcast included).
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// Translated IPv6 prefixes embed an IPv4 address, which a gateway on the way may
// reach: NAT64's well-known prefix (the address in the last 32 bits) and 6to4 (in bits
// 16 to 48).
var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	sixToIn = netip.MustParsePrefix("2002::/16")
)

// special names the kind of an address that is not public, or returns "".
func special(ip netip.Addr) string {
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			if kind := special(netip.AddrFrom4([4]byte(b[12:16]))); kind != "" {
				return kind + " (through NAT64)"
			}
		case sixToIn.Contains(ip):
			if kind := special(netip.AddrFrom4([4]byte(b[2:6]))); kind != "" {
				return kind + " (through 6to4)"
			}
		}
	}
	for _, n := range reserved {
		if n.Contains(ip) {
			return "reserved"
		}
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.IsPrivate(), cgnat.Contains(ip):
		return "private"
	}
	return ""
}
