package daemon

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/inferd/inferd/internal/config"
)

// healthcheckTimeout bounds one probe: a container runtime kills a probe that
// outlives its own timeout anyway, and a hung probe should say so itself.
const healthcheckTimeout = 5 * time.Second

// healthcheck is --healthcheck: GET /health of the process the same settings start,
// on the loopback interface, for a container's HEALTHCHECK (the image has no curl).
// It returns the exit code: 0 for a 200, 1 for anything else, 2 for bad settings.
func healthcheck(cmd Command, stdout, stderr io.Writer) int {
	cfg, err := config.FromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "%s: invalid settings:\n%v\n", cmd.Name, err)
		return 2
	}
	addr, err := loopback(cmd.Addr(cfg))
	if err != nil {
		fmt.Fprintf(stderr, "%s: --healthcheck: %v\n", cmd.Name, err)
		return 2
	}
	url := "http://" + addr + "/health"
	ctx, cancel := context.WithTimeout(context.Background(), healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --healthcheck: %v\n", cmd.Name, err)
		return 2
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --healthcheck: %v\n", cmd.Name, err)
		return 1
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "%s: --healthcheck: GET %s answered %s\n", cmd.Name, url, resp.Status)
		return 1
	}
	fmt.Fprintf(stdout, "%s: GET %s answered %s\n", cmd.Name, url, resp.Status)
	return 0
}

// loopback turns the address a process listens on into one to reach it at from the
// same machine: every interface (":8080", "0.0.0.0:8080", "[::]:8080") is reached
// through 127.0.0.1. Port 0 cannot be probed: the port is known only to the process.
func loopback(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", err
	}
	if port == "0" {
		return "", fmt.Errorf("the listen address %q asks for any free port: set a fixed port to probe it", listen)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
