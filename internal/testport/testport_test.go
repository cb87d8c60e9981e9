package testport

import (
	"net"
	"strconv"
	"testing"
)

func TestFree(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		port, err := Free()
		if err != nil {
			t.Fatal(err)
		}
		if top := ephemeralStart(); top > lowest+1000 && (port < lowest || port >= top) {
			t.Errorf("port %d outside [%d, %d)", port, lowest, top)
		}
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("port %d is not free: %v", port, err)
		}
		l.Close()
		seen[port] = true
	}
	if len(seen) < 40 {
		t.Errorf("50 picks gave %d distinct ports: not spread", len(seen))
	}
}
