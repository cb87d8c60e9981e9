package webhook_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/webhook"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name, allow, url string
		ok               bool
	}{
		{"unset refuses all", "", "https://hooks.example.com/x", false},
		{"listed name", "hooks.example.com", "https://hooks.example.com/x", true},
		{"name case and dot", "hooks.example.com", "https://HOOKS.example.com./x", true},
		{"other name", "hooks.example.com", "https://evil.example.com/x", false},
		{"subdomain", "*.example.com", "https://a.b.example.com/x", true},
		{"subdomain not the domain", "*.example.com", "https://example.com/x", false},
		{"any name", "*", "https://anything.example.org/x", true},
		{"any, internationalised name", "*", "https://bücher.example/x", true},
		{"any, public address", "*", "http://8.8.8.8:8080/x", true},
		{"any, public v6", "*", "http://[2001:4860:4860::8888]/x", true},
		{"any, public as one number", "*", "http://134744072/x", true}, // 8.8.8.8
		{"any, mapped public", "*", "http://[::ffff:8.8.8.8]/x", true},
		{"any, NAT64 of public", "*", "http://[64:ff9b::8.8.8.8]/x", true},
		{"any, 6to4 of public", "*", "http://[2002:808:808::1]/x", true},
		{"loopback not listed", "hooks.example.com", "http://127.0.0.1:9/x", false},
		{"loopback listed", "127.0.0.1", "http://127.0.0.1:9/x", true},
		{"loopback listed, written as a number", "127.0.0.1", "http://2130706433:9/x", true},
		{"loopback listed as a number", "0x7f000001", "http://127.0.0.1:9/x", true},
		{"private network listed", "10.0.0.0/8", "http://10.1.2.3/x", true},
		{"documentation address listed", "203.0.113.7", "http://203.0.113.7/x", true},
		{"loopback's network listed, not the address", "127.0.0.0/8", "http://127.0.0.1/x", false},
		{"everything listed but this machine", "0.0.0.0/0,::/0", "http://127.0.0.1/x", false},
		{"everything listed, a private address", "0.0.0.0/0,::/0", "http://10.1.2.3/x", true},
		{"scheme", "*", "ftp://hooks.example.com/x", false},
		{"relative", "*", "/x", false},
		{"opaque", "*", "http:hooks.example.com", false},
		{"credentials", "*", "https://user:pw@hooks.example.com/x", false},
		{"port 65535", "*", "https://hooks.example.com:65535/x", true},
		{"empty port", "*", "https://hooks.example.com:/x", true},
		{"port with zeros", "*", "https://hooks.example.com:00443/x", true},
		{"port 0", "*", "https://hooks.example.com:0/x", false},
		{"port 99999", "*", "https://hooks.example.com:99999/x", false},
		{"port 65536", "*", "https://hooks.example.com:65536/x", false},
		{"port beyond 64 bits", "*", "https://hooks.example.com:99999999999999999999999/x", false},
		{"empty label", "*", "https://hooks..example.com/x", false},
		{"label over 63", "*", "https://" + strings.Repeat("a", 64) + ".example.com/x", false},
		{"not a name", "*", "https://hooks!.example.com/x", false},
		{"IPv4 in brackets", "*", "http://[8.8.8.8]/x", false},
		{"IPv6 with a zone", "*", "http://[2001:4860:4860::8888%25eth0]/x", false},
		{"five numbers", "*", "http://1.2.3.4.5/x", false},
		{"number over 255", "*", "http://256.1.1.1/x", false},
		{"last number too large", "*", "http://1.2.65536/x", false},
		{"bad octal", "*", "http://08.1.1.1/x", false},
		{"name ending in a number", "*", "http://hooks.example.123/x", false},
		{"name ending in hex", "*", "http://hooks.example.0x1f/x", false},
		{"name ending in not-quite hex", "*", "http://hooks.example.0x1g/x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := webhook.ParseAllowList(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			err = a.CheckURL(tt.url)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckURL(%q) under %q = %v, want ok %v", tt.url, tt.allow, err, tt.ok)
			}
			if err != nil && !errors.Is(err, webhook.ErrNotAllowed) {
				t.Errorf("error %v is not ErrNotAllowed", err)
			}
		})
	}
}

// TestCheckURLRefusesSpecial: under "*", every special-purpose range and every way of
// writing an address of one is refused at submission, the detail naming its kind.
func TestCheckURLRefusesSpecial(t *testing.T) {
	any, err := webhook.ParseAllowList("*")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, kind string
	}{
		// IPv4 Special-Purpose Address Registry, and multicast.
		{"0.0.0.0", "this machine"},
		{"0.1.2.3", "this-network"},
		{"10.1.2.3", "private"},
		{"100.64.0.1", "shared"},
		{"100.127.255.254", "shared"},
		{"127.0.0.1", "this machine"},
		{"127.5.6.7", "this machine"},
		{"169.254.169.254", "link-local"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.0.0.9", "IETF protocol assignment"},
		{"192.0.0.170", "IETF protocol assignment"},
		{"192.0.2.1", "documentation"},
		{"192.31.196.1", "AS112"},
		{"192.52.193.1", "AMT"},
		{"192.88.99.1", "6to4 relay anycast"},
		{"192.168.1.1", "private"},
		{"192.175.48.1", "AS112"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.255", "benchmarking"},
		{"198.51.100.7", "documentation"},
		{"203.0.113.7", "documentation"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.254", "reserved"},
		{"255.255.255.255", "broadcast"},
		// Numeric forms, read as the URL Standard (browsers, curl) reads them.
		{"127.1", "this machine"},
		{"127.0.1", "this machine"},
		{"2130706433", "this machine"},
		{"0x7f000001", "this machine"},
		{"0X7F000001", "this machine"},
		{"0x7f.1", "this machine"},
		{"0177.0.0.1", "this machine"},
		{"0177.1", "this machine"},
		{"017700000001", "this machine"},
		{"127.0.0.1.", "this machine"},
		{"3232235777", "private"},    // 192.168.1.1
		{"0xa9fea9fe", "link-local"}, // 169.254.169.254
		{"0", "this machine"},
		{"127%2e0%2e0%2e1", "not a URL"}, // Go's parser takes escapes in a host for UTF-8 only
		{"１２７．０．０．１", "this machine"},    // full-width, mapped as the HTTP client maps it
		// IPv6 Special-Purpose Address Registry, multicast and the reserved space.
		{"[::]", "this machine"},
		{"[::1]", "this machine"},
		{"[64:ff9b:1::1]", "local-use"},
		{"[100::1]", "discard-only"},
		{"[2001::1]", "Teredo"},
		{"[2001:1::1]", "IETF protocol assignment"},
		{"[2001:2::1]", "benchmarking"},
		{"[2001:20::1]", "IETF protocol assignment"},
		{"[2001:db8::1]", "documentation"},
		{"[2620:4f:8000::1]", "AS112"},
		{"[3fff::1]", "documentation"},
		{"[5f00::1]", "SRv6"},
		{"[fc00::1]", "unique-local"},
		{"[fd12:3456::1]", "unique-local"},
		{"[fe80::1]", "link-local"},
		{"[fec0::1]", "site-local"},
		{"[ff02::1]", "multicast"},
		{"[4000::1]", "reserved"},
		{"[::1:0:0:1]", "reserved"},
		// IPv6 forms that carry an IPv4 address, judged by it.
		{"[::127.0.0.1]", "this machine"},
		{"[::7f00:1]", "this machine"},
		{"[::ffff:127.0.0.1]", "this machine"},
		{"[::ffff:7f00:1]", "this machine"},
		{"[::ffff:0:127.0.0.1]", "this machine"},
		{"[::10.1.2.3]", "private (IPv4-compatible)"},
		{"[::ffff:10.1.2.3]", "private (IPv4-mapped)"},
		{"[::ffff:0:192.0.2.1]", "documentation (IPv4-translated)"},
		{"[::ffff:169.254.169.254]", "link-local"},
		{"[64:ff9b::10.0.0.1]", "private (through NAT64)"},
		{"[64:ff9b::127.0.0.1]", "this machine (a loopback (through NAT64) address)"},
		{"[2002:7f00:1::]", "loopback (through 6to4)"},
		{"[2002:c000:0201::1]", "documentation (through 6to4)"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			for _, url := range []string{"http://" + tt.host + "/x", "https://" + tt.host + ":8443/x"} {
				err := any.CheckURL(url)
				if !errors.Is(err, webhook.ErrNotAllowed) {
					t.Fatalf("CheckURL(%q) = %v, want ErrNotAllowed", url, err)
				}
				if !strings.Contains(err.Error(), tt.kind) {
					t.Errorf("CheckURL(%q) = %v, want it to name %q", url, err, tt.kind)
				}
			}
		})
	}
}

func TestParseAllowList(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"mixed", "hooks.example.com, *.example.org,10.0.0.0/8, 127.0.0.1,*", true},
		{"bad name", "hooks example", false},
		{"bad wildcard", "*.", false},
		{"url", "https://hooks.example.com", false},
		{"numeric address", "127.1, 2130706433, 0x7f000001", true},
		{"not an address", "999.0.0.1", false},
		{"empty label", "hooks..example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := webhook.ParseAllowList(tt.in); (err == nil) != tt.ok {
				t.Errorf("ParseAllowList(%q) = %v, want ok %v", tt.in, err, tt.ok)
			}
		})
	}
}
