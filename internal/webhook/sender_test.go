package webhook_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testport"
	"github.com/inferd/inferd/internal/webhook"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func newSender(t *testing.T, allow string, timeout time.Duration) *webhook.Sender {
	t.Helper()
	a, err := webhook.ParseAllowList(allow)
	if err != nil {
		t.Fatal(err)
	}
	s, err := webhook.ParseSecret(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return webhook.NewSender(webhook.SenderOptions{Secret: s, Allow: a, Timeout: timeout, MaxResponseBytes: 1 << 10})
}

// TestSendSigned: the receiver gets the body with headers its own verification of the
// specification accepts.
func TestSendSigned(t *testing.T) {
	var verified atomic.Bool
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verify(testSecret, r.Header, body); err != nil {
			t.Errorf("receiver: %v", err)
		} else if r.Header.Get("webhook-id") == "job-1" && string(body) == `{"a":1}` {
			verified.Store(true)
		}
	}))
	defer rcv.Close()
	s := newSender(t, "127.0.0.1", 5*time.Second)
	if err := s.Send(context.Background(), rcv.URL+"/hook", "job-1", []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if !verified.Load() {
		t.Error("the receiver did not get the signed message")
	}
}

// TestSendRefused: each way a callback must not get through, with a receiver that
// fails the test if anything reaches it.
func TestSendRefused(t *testing.T) {
	var reached atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	defer rcv.Close()
	port := rcv.URL[strings.LastIndex(rcv.URL, ":"):]
	tests := []struct {
		name, allow, url string
	}{
		// Allowed by name ("*"), but it resolves to loopback, which the dial refuses:
		// the address dialed is what is checked, not the name.
		{"name resolving to loopback", "*", "http://localhost" + port + "/hook"},
		{"loopback address not listed", "hooks.example.com", rcv.URL + "/hook"},
		{"loopback under any", "*", rcv.URL + "/hook"},
		{"another network listed", "10.0.0.0/8", rcv.URL + "/hook"},
		// The machine's own addresses need an entry of their own: a wider network
		// does not do.
		{"its network listed", "127.0.0.0/8", rcv.URL + "/hook"},
		{"everything listed", "0.0.0.0/0,::/0", rcv.URL + "/hook"},
		// Hosts written as numbers are the addresses they are, as curl reads them.
		{"short form", "*", "http://127.1" + port + "/hook"},
		{"one number", "*", "http://2130706433" + port + "/hook"},
		{"hex", "*", "http://0x7f000001" + port + "/hook"},
		{"octal", "*", "http://0177.0.0.1" + port + "/hook"},
		{"mapped", "*", "http://[::ffff:127.0.0.1]" + port + "/hook"},
		{"port out of range", "127.0.0.1", "http://127.0.0.1:99999/hook"},
		{"port 0", "127.0.0.1", "http://127.0.0.1:0/hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := newSender(t, tt.allow, 5*time.Second).Send(context.Background(), tt.url, "job-1", []byte(`{}`))
			if !errors.Is(err, webhook.ErrNotAllowed) {
				t.Errorf("Send = %v, want ErrNotAllowed", err)
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the receiver was reached %d times", n)
	}
}

// TestSendNoRedirect: a redirect is an attempt that failed, and its target is never
// asked, even when it is allowed.
func TestSendNoRedirect(t *testing.T) {
	var reached atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	defer target.Close()
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+"/elsewhere", code)
			}))
			defer rcv.Close()
			err := newSender(t, "127.0.0.1", 5*time.Second).Send(context.Background(), rcv.URL, "job-1", []byte(`{}`))
			if err == nil || !strings.Contains(err.Error(), "redirect") {
				t.Errorf("Send = %v, want a redirect refused", err)
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the redirect's target was reached %d times", n)
	}
}

// TestSendSlowReceiver: a receiver that does not answer within the timeout fails the
// attempt with ErrTimeout; one that answers 2xx and then streams its body forever is
// cut after the response cap, and counts as delivered.
func TestSendSlowReceiver(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer silent.Close()
	defer close(release) // before Close, which waits for the handler
	streamed := make(chan int64, 1)
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int64
		buf := make([]byte, 4<<10)
		for {
			m, err := w.Write(buf)
			n += int64(m)
			if err != nil || r.Context().Err() != nil {
				streamed <- n
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	defer endless.Close()

	t.Run("no answer", func(t *testing.T) {
		err := newSender(t, "127.0.0.1", 500*time.Millisecond).Send(context.Background(), silent.URL, "job-1", []byte(`{}`))
		if !errors.Is(err, webhook.ErrTimeout) {
			t.Errorf("Send = %v, want ErrTimeout", err)
		}
	})
	t.Run("endless body", func(t *testing.T) {
		// A timeout far longer than the test: only the cap can end the read.
		done := make(chan error, 1)
		go func() {
			done <- newSender(t, "127.0.0.1", time.Hour).Send(context.Background(), endless.URL, "job-1", []byte(`{}`))
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Send = %v, want delivered", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Send still reads an endless answer after 30 s")
		}
		select {
		case <-streamed: // the connection was closed under the receiver
		case <-time.After(30 * time.Second):
			t.Fatal("the receiver still streams after 30 s: its connection was not closed")
		}
	})
}

// TestSendNumericHost: a host written as one number is dialed as the address it is,
// and delivered when that address is listed, as curl would deliver it.
func TestSendNumericHost(t *testing.T) {
	var reached atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	defer rcv.Close()
	port := rcv.URL[strings.LastIndex(rcv.URL, ":"):]
	for _, host := range []string{"2130706433", "0x7f000001", "127.1", "[::ffff:127.0.0.1]"} {
		t.Run(host, func(t *testing.T) {
			before := reached.Load()
			if err := newSender(t, "127.0.0.1", 5*time.Second).Send(context.Background(), "http://"+host+port+"/hook", "job-1", []byte(`{}`)); err != nil {
				t.Fatalf("Send = %v, want delivered to 127.0.0.1", err)
			}
			if reached.Load() != before+1 {
				t.Error("the receiver on 127.0.0.1 was not reached")
			}
		})
	}
}

// TestSendOwnAddress: a callback to an address of one of this machine's interfaces
// (not loopback) is refused, at submission and when dialed, however wide the list,
// unless that address itself is listed; the receiver listening there is reached only
// then.
func TestSendOwnAddress(t *testing.T) {
	ip := testport.OwnAddress(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatalf("listening on this machine's address %s: %v", ip, err)
	}
	var reached atomic.Int64
	rcv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	rcv.Listener = ln
	rcv.Start()
	defer rcv.Close()
	url := "http://" + ln.Addr().String() + "/hook"
	wide := netip.PrefixFrom(ip, 8).Masked().String()
	if ip.Is6() {
		wide = netip.PrefixFrom(ip, 16).Masked().String()
	}
	for _, allow := range []string{"*", "*," + wide, "0.0.0.0/0,::/0"} {
		t.Run(allow, func(t *testing.T) {
			a, err := webhook.ParseAllowList(allow)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.CheckURL(url); !errors.Is(err, webhook.ErrNotAllowed) || !strings.Contains(err.Error(), "this machine") {
				t.Errorf("CheckURL(%s) = %v, want refused as an address of this machine", url, err)
			}
			err = newSender(t, allow, 5*time.Second).Send(context.Background(), url, "job-1", []byte(`{}`))
			if !errors.Is(err, webhook.ErrNotAllowed) || !strings.Contains(err.Error(), "this machine") {
				t.Errorf("Send = %v, want refused as an address of this machine", err)
			}
		})
	}
	if ip.Is4() {
		// Through NAT64, whose network is listed, the address is this machine's too.
		a, err := webhook.ParseAllowList("*,64:ff9b::/96")
		if err != nil {
			t.Fatal(err)
		}
		b := ip.As4()
		nat64 := netip.AddrFrom16([16]byte{0: 0, 1: 0x64, 2: 0xff, 3: 0x9b, 12: b[0], 13: b[1], 14: b[2], 15: b[3]})
		if err := a.CheckURL("http://[" + nat64.String() + "]/hook"); !errors.Is(err, webhook.ErrNotAllowed) || !strings.Contains(err.Error(), "this machine") {
			t.Errorf("CheckURL([%s]) = %v, want refused as an address of this machine", nat64, err)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the receiver on %s was reached %d times", ip, n)
	}
	t.Run("listed itself", func(t *testing.T) {
		if err := newSender(t, ip.String(), 5*time.Second).Send(context.Background(), url, "job-1", []byte(`{}`)); err != nil {
			t.Fatalf("Send = %v, want delivered", err)
		}
		if reached.Load() != 1 {
			t.Error("the receiver was not reached")
		}
	})
}
