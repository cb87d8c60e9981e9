package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	neturl "net/url"
	"strconv"
	"time"
)

// Defaults of SenderOptions left at zero (and of the settings they come from).
const (
	DefaultTimeout          = 10 * time.Second
	DefaultMaxResponseBytes = 64 << 10
)

// ErrTimeout: the receiver did not answer within the timeout.
var ErrTimeout = errors.New("the receiver did not answer in time")

// errAnswered marks an answer that is not 2xx.
var errAnswered = errors.New("the receiver answered")

// SenderOptions configure a Sender. The zero value of each field is a documented
// default.
type SenderOptions struct {
	Secret Secret
	Allow  AllowList
	// Timeout bounds one attempt, from dialing to the last byte of the answer read.
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes is how much of an answer's body is read; the rest is not, and
	// the connection is closed. 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Resolver defaults to net.DefaultResolver.
	Resolver *net.Resolver
}

// Sender makes one signed attempt at a callback at a time.
type Sender struct {
	opts   SenderOptions
	client *http.Client
}

// NewSender returns a Sender whose connections go only to the addresses opts.Allow
// allows.
func NewSender(opts SenderOptions) *Sender {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	s := &Sender{opts: opts}
	s.client = &http.Client{
		Transport: &http.Transport{
			// No proxy from the environment: it would dial on the callback's behalf,
			// past the address check.
			Proxy:                  nil,
			DialContext:            s.dial,
			TLSHandshakeTimeout:    opts.Timeout,
			ResponseHeaderTimeout:  opts.Timeout,
			MaxResponseHeaderBytes: 16 << 10,
			MaxIdleConnsPerHost:    8,
			IdleConnTimeout:        30 * time.Second,
			ForceAttemptHTTP2:      true,
		},
		Timeout: opts.Timeout,
		// A redirect could point anywhere, the address check's networks included.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s
}

// dial connects to the first address of the host that the allow list allows, by that
// address: the name is resolved here, once, so a second lookup cannot answer another.
// A host written as a number (127.1) is the address it is, as at submission.
func (s *Sender) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	h, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotAllowed, err)
	}
	host, ip, err := parseHost(h)
	if err != nil {
		return nil, fmt.Errorf("%w: the host %s: %w", ErrNotAllowed, h, err)
	}
	var ips []netip.Addr
	if ip.IsValid() {
		ips, host = []netip.Addr{ip}, ""
	} else if ips, err = s.opts.Resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	var refused error
	d := net.Dialer{}
	for _, ip := range ips {
		if host != "" {
			ip = ip.Unmap() // the resolver gives IPv4 answers in IPv6 form
		}
		if err := s.opts.Allow.checkAddr(host, ip); err != nil {
			refused = err
			continue
		}
		return d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
	}
	if refused == nil {
		refused = fmt.Errorf("%s has no address", host)
	}
	return nil, refused
}

// Send posts body, signed as message id at the current time, to url, and returns
// nil when the receiver answered 2xx. Any other answer, a redirect included, is an
// error saying what the receiver did.
func (s *Sender) Send(ctx context.Context, url, id string, body []byte) error {
	// What submission refused is refused here too, for a record older than a check.
	if _, err := parseTarget(url); err != nil {
		return fmt.Errorf("%w: %w", ErrNotAllowed, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAllowed, err)
	}
	ts := time.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "inferd-webhook")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", s.opts.Secret.Sign(id, ts, body))
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.Is(err, ErrNotAllowed) {
			// The refusal says it all; the URL it came with is on the record already.
			var ue *neturl.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return err
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return fmt.Errorf("%w (%s)", ErrTimeout, s.opts.Timeout)
		}
		return err
	}
	// The answer matters only by its status: no more than the cap of its body is read
	// (within the timeout), so a receiver that streams forever is cut; a 2xx whose body
	// is cut is delivered all the same.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, s.opts.MaxResponseBytes))
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return fmt.Errorf("%w %d, a redirect, which is not followed", errAnswered, resp.StatusCode)
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		return fmt.Errorf("%w %d", errAnswered, resp.StatusCode)
	}
	return nil
}
