package apitest

import (
	"net"
	"strings"
	"testing"
)

// IdleConns opens n connections to the server at url (http://host:port) that send
// nothing, as a scraper's or another client's would stand open, and closes them when
// the test ends. The server has counted them (http.Server.ConnState) by the time it
// accepts a connection dialled after them.
func IdleConns(t testing.TB, url string, n int) {
	t.Helper()
	for range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
	}
}
