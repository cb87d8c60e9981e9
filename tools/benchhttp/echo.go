package main

import (
	"encoding/json"
	"net/http"
	"time"
)

// echoAddrEnv tells the harness's own executable (or its test binary) to be the
// baseline server instead: a separate process, like inferd, so that neither shares
// the load generator's CPU time and garbage collector.
const echoAddrEnv = "BENCHHTTP_ECHO_ADDR"

// serveEcho is the baseline: the least a Go JSON service does per request, decoding
// the body and encoding it back, with net/http alone.
func serveEcho(addr string) error {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
