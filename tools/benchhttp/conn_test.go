package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestConn drives Conn against net/http's server, which is what it must speak to.
func TestConn(t *testing.T) {
	var conns atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != devKey || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "headers not sent", http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	})
	mux.HandleFunc("GET /chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"job_id":"j1",`))
		w.(http.Flusher).Flush() // no Content-Length: the answer is chunked
		w.Write([]byte(`"status":"succeeded"}`))
	})
	mux.HandleFunc("GET /close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Write([]byte("bye"))
	})
	mux.HandleFunc("GET /missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such model", http.StatusNotFound)
	})
	mux.HandleFunc("GET /hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	tests := []struct {
		name      string
		run       func(c *Conn) error
		wantErr   string
		wantConns int64
	}{
		{"requests share one keep-alive connection", func(c *Conn) error {
			for range 5 {
				if err := do(c, http.MethodPost, srv.URL+"/echo", echoBody, nil); err != nil {
					return err
				}
			}
			return nil
		}, "", 1},
		{"a chunked JSON answer is decoded whole", func(c *Conn) error {
			var j job
			if err := do(c, http.MethodGet, srv.URL+"/chunked", nil, &j); err != nil {
				return err
			}
			if j.JobID != "j1" || j.Status != "succeeded" {
				return errors.New("decoded " + j.JobID + " " + j.Status)
			}
			return do(c, http.MethodGet, srv.URL+"/chunked", nil, &j)
		}, "", 1},
		{"Connection: close makes the next request dial again", func(c *Conn) error {
			for range 3 {
				if err := do(c, http.MethodGet, srv.URL+"/close", nil, nil); err != nil {
					return err
				}
			}
			return nil
		}, "", 3},
		{"a status other than 200 is an error with the body", func(c *Conn) error {
			return do(c, http.MethodGet, srv.URL+"/missing", nil, nil)
		}, "GET " + srv.URL + "/missing: 404 no such model", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := conns.Load()
			c := NewConn(context.Background())
			defer c.Close()
			err := tt.run(c)
			if got := ""; err != nil {
				got = strings.TrimSpace(err.Error())
				if got != tt.wantErr {
					t.Fatalf("error %q, want %q", got, tt.wantErr)
				}
			} else if tt.wantErr != "" {
				t.Fatalf("no error, want %q", tt.wantErr)
			}
			if n := conns.Load() - before; n != tt.wantConns {
				t.Errorf("%d connections, want %d", n, tt.wantConns)
			}
		})
	}

	t.Run("the end of the run cuts a request in flight off", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		c := NewConn(ctx)
		defer c.Close()
		time.AfterFunc(50*time.Millisecond, cancel)
		err := do(c, http.MethodGet, srv.URL+"/hang", nil, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
}

// TestCPUTime reads this process's CPU time, which a busy loop must raise. The loop
// runs until it has, or for 10 s of wall time on a machine too busy to give it a core.
func TestCPUTime(t *testing.T) {
	before, err := CPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var after time.Duration
	for end := time.Now().Add(10 * time.Second); after-before < 50*time.Millisecond && time.Now().Before(end); {
		for spin := time.Now().Add(10 * time.Millisecond); time.Now().Before(spin); {
		}
		if after, err = CPUTime(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	if d := after - before; d < 50*time.Millisecond {
		t.Errorf("10 s of busy loop counted %s of CPU time", d)
	}
	if _, err := CPUTime(-1); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
