package main_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestSIGTERMDrainsInFlightRequests runs the built server under load, sends SIGTERM
// while requests are in flight (one of them still uploading its body), and checks
// that every request that reached the server completes and the process exits 0.
func TestSIGTERMDrainsInFlightRequests(t *testing.T) {
	p := startInferd(t)
	c := apitest.New(t, p.URL)

	// A slow upload: the request is in flight until its body is complete.
	pr, pw := io.Pipe()
	slowDone := make(chan *apitest.Response, 1)
	go func() {
		req := c.NewRequest(http.MethodPost, "/predict", "dev-key", nil)
		req.Header.Set("Content-Type", "application/json")
		req.Body, req.ContentLength = pr, -1
		resp, err := c.TryDo(req)
		if err != nil {
			t.Errorf("slow request: %v", err)
		}
		slowDone <- resp
	}()
	if _, err := io.WriteString(pw, `{"model":"echo","data":"`); err != nil {
		t.Fatal(err)
	}

	// Load from 8 goroutines until the server stops answering.
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req := c.NewRequest(http.MethodPost, "/predict/batch", "dev-key", `{"model":"echo","items":[1,2,3]}`)
				resp, err := c.TryDo(req)
				if err != nil {
					continue // refused after shutdown began: never reached a handler
				}
				if resp.Status == http.StatusOK {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}()
	}
	testkit.Eventually(t, 30*time.Second, func() bool { return ok.Load() >= 8 }, "the load to be answered")
	p.Signal(syscall.SIGTERM)
	// Shutdown has begun; the upload is still going.
	testkit.Eventually(t, 10*time.Second, func() bool { return strings.Contains(p.Logs(), "draining") }, "the server to start draining")
	if _, err := io.WriteString(pw, strings.Repeat("x", 1000)+`"}`); err != nil {
		t.Fatalf("finishing the upload: %v", err)
	}
	pw.Close()

	select {
	case resp := <-slowDone:
		if resp == nil || resp.Status != http.StatusOK {
			t.Fatalf("the in-flight request did not complete: %+v", resp)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the in-flight request never completed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, err := p.Wait(ctx)
	close(stop)
	wg.Wait()
	if err != nil || code != 0 {
		t.Fatalf("exit code %d (%v); logs:\n%s", code, err, p.Logs())
	}
	if bad.Load() != 0 || ok.Load() == 0 {
		t.Errorf("%d requests answered 200, %d answered otherwise", ok.Load(), bad.Load())
	}
	if !strings.Contains(p.Logs(), "stopped") {
		t.Errorf("no clean stop in the logs:\n%s", p.Logs())
	}
}
