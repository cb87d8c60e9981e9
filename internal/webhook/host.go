package webhook

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// target is a callback URL as it will be dialed: its host read as a browser's URL
// parser reads it, and its port.
type target struct {
	// host is lower case and ASCII, without a trailing dot; an IPv6 address without
	// its brackets.
	host string
	// addr is the host as an address when it is one, in whichever form it was
	// written (127.1, 2130706433, [::ffff:7f00:1], ...).
	addr netip.Addr
	// origin names the receiver, scheme://host:port with the scheme's port when the
	// URL has none: the attempts of one receiver share its lane.
	origin string
}

// parseTarget reads raw as an absolute http(s) URL that can be dialed, or says why it
// is not one. It does not consult the allow list.
func parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return target{}, fmt.Errorf("callback_url is not a URL (%v)", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return target{}, errors.New("callback_url must be an absolute http:// or https:// URL")
	case u.User != nil:
		// Any key may read a job's record, callback URL included.
		return target{}, errors.New("callback_url must not carry a user name or password, which every key reading the job would see; authenticate the callback by its webhook-signature")
	case u.Hostname() == "":
		return target{}, errors.New("callback_url has no host")
	}
	port := u.Port()
	if port != "" {
		// The parser takes any digits; a port is 1 to 65535 (leading zeros are
		// read as browsers read them).
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return target{}, fmt.Errorf("callback_url's port %s is not one of 1 to 65535", port)
		}
	}
	host, addr, err := parseHost(u.Hostname())
	if err != nil {
		return target{}, fmt.Errorf("callback_url's host %s: %w", u.Hostname(), err)
	}
	if strings.HasPrefix(u.Host, "[") != addr.Is6() {
		return target{}, fmt.Errorf("callback_url's host %s: an IPv6 address is written between brackets, and only an IPv6 address", u.Hostname())
	}
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	} else {
		n, _ := strconv.ParseUint(port, 10, 16)
		port = strconv.FormatUint(n, 10)
	}
	name := host
	if addr.Is6() {
		name = "[" + host + "]"
	}
	return target{host: host, addr: addr, origin: u.Scheme + "://" + name + ":" + port}, nil
}

// parseHost reads the host of a URL, or of an address dialed, as the URL Standard's
// host parser does (the one browsers use, which curl follows): an IPv6 address, an
// IPv4 address in any of the numeric forms it takes (127.1, 2130706433, 0x7f000001,
// 0177.0.0.1), or a domain name, an internationalised one mapped to its ASCII form as
// the HTTP client maps it before it dials. A host whose last label is a number and
// that is not an IPv4 address is no host at all. It returns the host lower case
// without a trailing dot, with the address when the host is one.
func parseHost(h string) (string, netip.Addr, error) {
	if strings.Contains(h, ":") {
		ip, err := netip.ParseAddr(h)
		switch {
		case err != nil || !ip.Is6():
			return "", netip.Addr{}, errors.New("not an IPv6 address")
		case ip.Zone() != "":
			// A zone names an interface of the machine that sends.
			return "", netip.Addr{}, errors.New("an IPv6 address with a zone (%) is not a receiver's address")
		}
		return ip.String(), ip, nil
	}
	if !isASCII(h) {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", netip.Addr{}, fmt.Errorf("not an internationalised domain name (%v)", err)
		}
		h = a
	}
	h = strings.ToLower(h)
	labels := strings.Split(h, ".")
	if endsInNumber(labels) {
		ip, ok := parseIPv4(labels)
		if !ok {
			return "", netip.Addr{}, errors.New("ends in a number, but is not an IPv4 address (four numbers of 0 to 255, or the shorter forms that make one)")
		}
		return ip.String(), ip, nil
	}
	h = strings.TrimSuffix(h, ".")
	if !hostName(h) {
		return "", netip.Addr{}, errors.New("not a domain name (labels of letters, digits and hyphens, at most 63 characters each and 253 in all)")
	}
	return h, netip.Addr{}, nil
}

// endsInNumber is the URL Standard's test that makes a host an IPv4 address or
// nothing: its last label (a trailing dot aside) is decimal digits, or 0x and hex.
func endsInNumber(labels []string) bool {
	if labels[len(labels)-1] == "" {
		if len(labels) == 1 {
			return false
		}
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// parseIPv4 is the URL Standard's IPv4 parser: one to four numbers, each decimal, hex
// (0x) or octal (a leading 0); all but the last at most 255, the last filling the
// bytes that remain.
func parseIPv4(labels []string) (netip.Addr, bool) {
	if len(labels) > 1 && labels[len(labels)-1] == "" {
		labels = labels[:len(labels)-1]
	}
	if len(labels) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, l := range labels {
		n, ok := ipv4Number(l)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(labels)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(5-len(labels))) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Number reads one number of an IPv4 host; one too large for 64 bits is too large
// for an address, and fails.
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil
}

// hostName reports whether s is spelled as a DNS name.
func hostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for l := range strings.SplitSeq(s, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
