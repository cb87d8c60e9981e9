package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// echoAddrEnv tells the harness's own executable (or its test binary) to be the
// baseline server instead: a separate process, like inferd, so that neither shares
// the load generator's CPU time and garbage collector.
const echoAddrEnv = "BENCHHTTP_ECHO_ADDR"

// floorPath is where the baseline process serves the floor for large bodies: the
// body read whole and written back, no parsing, which is what the kernel's loopback
// copies and net/http cost before any tensor work.
const floorPath = "/floor"

// healthPath is where both the baseline and inferd answer a liveness probe.
const healthPath = "/health"

// serveEcho is the baseline: the least a Go JSON service does per request, decoding
// the body and encoding it back, with net/http alone; and at floorPath the least any
// Go HTTP service does with a body.
func serveEcho(addr string) error {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == floorPath {
			serveFloor(w, r)
			return
		}
		if r.URL.Path == healthPath {
			// inferd's /health answer, for the tail section's floor of a request that
			// does nothing.
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":"ok"}`))
			return
		}
		var v any
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}

// serveFloor writes the body back as it came, with its length, as inferd answers a
// binary tensor (not chunked).
func serveFloor(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}
