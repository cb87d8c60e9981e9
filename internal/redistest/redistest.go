package redistest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/testport"
)

// startTimeout bounds how long a redis-server may take to answer its first PING.
const startTimeout = 10 * time.Second

// Options configure a Server. The zero value is a server without persistence.
type Options struct {
	// AppendOnly turns the append-only file on (appendfsync everysec), so a Restart
	// comes back with what the server had acknowledged.
	AppendOnly bool
	// ReplicaOf, when set, makes the server a replica of that one.
	ReplicaOf *Server
	// Cluster starts the server as a Redis Cluster node (StartCluster joins nodes
	// into a cluster). Its cluster bus listens on its port + 10000.
	Cluster bool
}

// Server is one redis-server process owned by a test.
type Server struct {
	tb   testing.TB
	opts Options
	bin  string
	dir  string
	port int
	// sentinel, when set, is the configuration of a server in sentinel mode, written
	// to a file before each start (Sentinel rewrites its file as it learns).
	sentinel func(port int) string

	mu     sync.Mutex
	proc   *os.Process
	exited chan struct{} // closed when proc has been waited for
}

// Start runs a redis-server without persistence on a free port and stops it when tb
// ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	return StartWith(tb, Options{})
}

// StartWith is Start with options.
func StartWith(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := &Server{tb: tb, opts: opts, bin: lookPath(tb), dir: tb.TempDir()}
	s.launch()
	return s
}

// lookPath finds redis-server (which is also Sentinel, with --sentinel), or skips the
// test, or fails it under CI=true.
func lookPath(tb testing.TB) string {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("redis-server is not installed, and CI=true makes that a failure: %v", err)
		}
		tb.Skipf("redis-server is not installed: %v", err)
	}
	return bin
}

// launch starts s on a free port and stops it when the test ends.
func (s *Server) launch() {
	tb := s.tb
	tb.Helper()
	tb.Cleanup(s.Stop)
	var err error
	// A port found free can be taken before redis-server binds it; try a few.
	for range 3 {
		if s.port, err = freePort(s.opts.Cluster); err != nil {
			tb.Fatalf("finding a free port: %v", err)
		}
		if err = s.start(); err == nil {
			return
		}
	}
	tb.Fatalf("starting redis-server: %v", err)
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL is the server's address as a QUEUE_URL.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	s.tb.Cleanup(func() { _ = c.Close() })
	return c
}

// Stop kills the server (SIGKILL: no goodbye to clients). Without AppendOnly its data
// is gone. Stop is idempotent.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	_ = s.proc.Kill()
	<-s.exited
	s.proc, s.exited = nil, nil
}

// Restart stops the server if it runs and starts it again on the same port, so that
// clients holding the address reconnect to it by themselves: empty, or with what its
// append-only file kept when AppendOnly is set.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	var err error
	// The dead process's socket may linger for a moment.
	for deadline := time.Now().Add(startTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err = s.start(); err == nil {
			return
		}
	}
	s.tb.Fatalf("restarting redis-server on port %d: %v", s.port, err)
}

func (s *Server) start() error {
	var out bytes.Buffer
	args := []string{
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--dir", s.dir,
		"--appendonly", "no",
	}
	switch {
	case s.sentinel != nil:
		conf := filepath.Join(s.dir, "sentinel.conf")
		if err := os.WriteFile(conf, []byte(s.sentinel(s.port)), 0o600); err != nil {
			return err
		}
		args = []string{conf, "--sentinel"}
	case s.opts.AppendOnly:
		args = append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	}
	if s.opts.Cluster {
		// A node silent for a second is failed over: a test's failover takes a few
		// seconds rather than the 15 s default.
		args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(s.dir, "nodes.conf"),
			"--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0")
	}
	if r := s.opts.ReplicaOf; r != nil {
		args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(r.port))
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for c.Ping(ctx).Err() != nil {
		select {
		case <-exited:
			return fmt.Errorf("redis-server exited at start: %s", out.String())
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("redis-server did not answer within %s: %s", startTimeout, out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	s.mu.Lock()
	s.proc, s.exited = cmd.Process, exited
	s.mu.Unlock()
	return nil
}

// freePort finds a free port (see testport); with bus, one whose cluster bus port
// (+10000) is free too.
func freePort(bus bool) (int, error) {
	for range 100 {
		port, err := testport.Free()
		if err != nil {
			return 0, err
		}
		if !bus {
			return port, nil
		}
		if port+10000 > 65535 {
			continue
		}
		if b, err := net.Listen("tcp", ":"+strconv.Itoa(port+10000)); err == nil {
			_ = b.Close()
			return port, nil
		}
	}
	return 0, errors.New("no free port whose cluster bus port is free too")
}
