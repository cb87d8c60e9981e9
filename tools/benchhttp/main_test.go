package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary be the baseline server, as the harness's own binary is
// in a real run: the smoke test starts this executable with echoAddrEnv set.
func TestMain(m *testing.M) {
	if addr := os.Getenv(echoAddrEnv); addr != "" {
		if err := serveEcho(addr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}
