package main_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestSIGTERMUnderKeepAliveLoad (see docs/design.md#shutdown-loses-no-request) runs the built server under load
// from several keep-alive connections and sends SIGTERM. The load plays a load
// balancer behind its readiness probe: it keeps sending for a while after the probe
// first sees /ready answer 503 (as Kubernetes takes a few seconds to update endpoints),
// then sends no new requests. Every request sent is answered 200, none is reset or left
// without an answer; /ready answers 503 stopping before the listener closes, the
// listener closes no earlier than SHUTDOWN_DRAIN after the signal, and the process
// exits 0.
func TestSIGTERMUnderKeepAliveLoad(t *testing.T) {
	const drain = 2 * time.Second
	const lag = time.Second // how long the balancer goes on sending after /ready's 503
	var balancerGone atomic.Bool
	p := startInferd(t, "SHUTDOWN_DRAIN="+drain.String())

	var (
		ok, refused atomic.Int64
		mu          sync.Mutex
		failures    []string
		closes      atomic.Int64 // answers that said Connection: close
	)
	fail := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, s)
		}
	}
	const conns = 6
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One keep-alive connection per goroutine, as a pool of clients would hold.
			tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}
			defer tr.CloseIdleConnections()
			cl := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			body := `{"model":"echo","data":{"conn":` + strconv.Itoa(i) + `}}`
			for !balancerGone.Load() {
				req, _ := http.NewRequest(http.MethodPost, p.URL+"/predict", strings.NewReader(body))
				req.Header.Set("X-API-Key", "dev-key")
				req.Header.Set("Content-Type", "application/json")
				resp, err := cl.Do(req)
				if errors.Is(err, syscall.ECONNREFUSED) {
					refused.Add(1)
					return
				}
				if err != nil {
					fail("dropped: " + err.Error())
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case err != nil:
					fail("answer cut off: " + err.Error())
				case resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"conn":`+strconv.Itoa(i))):
					fail(strconv.Itoa(resp.StatusCode) + " " + string(b))
				default:
					ok.Add(1)
				}
				if resp.Close {
					closes.Add(1)
				}
			}
		}()
	}

	// The probe: when /ready first says 503 stopping, and when it is first refused.
	var stoppingAt, closedAt time.Time
	var stoppingResp *apitest.Response
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
		for {
			req, _ := http.NewRequest(http.MethodGet, p.URL+"/ready", nil)
			resp, err := cl.Do(req)
			if err != nil {
				if errors.Is(err, syscall.ECONNREFUSED) {
					closedAt = time.Now()
					return
				}
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusServiceUnavailable && stoppingAt.IsZero() {
				stoppingAt = time.Now()
				time.AfterFunc(lag, func() { balancerGone.Store(true) })
				stoppingResp = &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
				if err := apitest.Validate(req, nil, stoppingResp); err != nil {
					fail("/ready while draining does not match openapi.yaml: " + err.Error())
				}
			}
			time.Sleep(20 * time.Millisecond) // the balancer's probe interval: the next GET /ready to the child inferd
		}
	}()

	testkit.Eventually(t, 30*time.Second, func() bool { return ok.Load() >= 5*conns }, "the load to be answered")
	before := ok.Load()
	sentAt := time.Now()
	p.Signal(syscall.SIGTERM)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := p.Wait(ctx)
	wg.Wait()
	<-probeDone
	if err != nil || code != 0 {
		t.Fatalf("exit code %d (%v); logs:\n%s", code, err, p.Logs())
	}
	t.Logf("%d requests answered 200 (%d after SIGTERM), %d of them with Connection: close; %d refused",
		ok.Load(), ok.Load()-before, closes.Load(), refused.Load())
	if refused.Load() != 0 {
		t.Errorf("%d connections refused while the balancer still sent: the listener closed too early", refused.Load())
	}
	for _, f := range failures {
		t.Error(f)
	}
	if ok.Load()-before == 0 {
		t.Error("no request was served after SIGTERM: the drain did not keep serving")
	}
	switch {
	case stoppingAt.IsZero():
		t.Error("/ready never answered 503 before the listener closed")
	case closedAt.IsZero():
		t.Error("the probe never saw the listener close")
	case !stoppingAt.Before(closedAt):
		t.Errorf("/ready said 503 at %s, after the listener closed at %s", stoppingAt.Sub(sentAt), closedAt.Sub(sentAt))
	case closedAt.Sub(sentAt) < drain:
		t.Errorf("the listener closed %s after SIGTERM, before SHUTDOWN_DRAIN (%s) was over", closedAt.Sub(sentAt), drain)
	}
	if stoppingResp != nil && !bytes.Contains(stoppingResp.Body, []byte(`"stopping"`)) {
		t.Errorf("/ready while draining: %s, want status stopping", stoppingResp.Body)
	}
}
