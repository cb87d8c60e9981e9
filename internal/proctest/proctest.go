package proctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/testport"
)

var (
	buildMu  sync.Mutex
	builtDir string
	built    = map[string]string{}
)

// Build compiles the command in cmd/<name> once per test binary and returns its path.
// With -short it skips the test instead: a -race build and a process per test take
// most of the time of the packages that use them (make test-short leaves them to
// make test).
func Build(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs cmd/" + name + "; runs without -short (make test)")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := built[name]; ok {
		return bin
	}
	if builtDir == "" {
		dir, err := os.MkdirTemp("", "inferd-bin-")
		if err != nil {
			t.Fatal(err)
		}
		builtDir = dir // left for the OS: other tests in this binary reuse it
	}
	bin := filepath.Join(builtDir, name)
	cmd := exec.Command(goCommand(), "build", "-race", "-o", bin, "./cmd/"+name)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	built[name] = bin
	return bin
}

// goCommand is the go command that runs this test: go test puts its GOROOT first
// on PATH.
func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// FreePort returns a TCP port nobody listens on now (see testport for where from).
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := testport.Free()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// Proc is a running binary.
type Proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	logs *apitest.Log
	done chan struct{}
	err  error
	// URL is http://127.0.0.1:<port> of the process's HTTP port.
	URL string
}

// Start runs bin with env (added to a minimal environment) and waits until GET
// <healthPath> on port answers 200. The process is killed at the test's end if it
// still runs.
func Start(t testing.TB, bin string, port int, healthPath string, env ...string) *Proc {
	t.Helper()
	p := spawn(t, bin, env)
	p.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	p.waitHealthy(healthPath, time.Now().Add(30*time.Second))
	return p
}

// listeningLine finds the address in the log line of a server or worker that listens.
var listeningLine = regexp.MustCompile(`listening"? addr=(\S+)`)

// StartListening is Start for a process told where to listen by its settings
// (LISTEN_ADDR=127.0.0.1:0, say): it learns the address from the process's
// "listening" log line, then waits until GET <healthPath> answers 200.
func StartListening(t testing.TB, bin, healthPath string, env ...string) *Proc {
	t.Helper()
	p := spawn(t, bin, env)
	deadline := time.Now().Add(30 * time.Second)
	for p.URL == "" {
		if m := listeningLine.FindStringSubmatch(p.logs.String()); m != nil {
			host, port, err := net.SplitHostPort(m[1])
			if err != nil {
				t.Fatalf("the listening line has %q: %v", m[1], err)
			}
			if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
				host = "127.0.0.1"
			}
			p.URL = "http://" + net.JoinHostPort(host, port)
			break
		}
		p.checkRunning(deadline)
		time.Sleep(20 * time.Millisecond)
	}
	p.waitHealthy(healthPath, deadline)
	return p
}

func spawn(t testing.TB, bin string, env []string) *Proc {
	t.Helper()
	cmd := exec.Command(bin)
	// GRPC_PORT=0 unless env says otherwise (a later value wins): test servers run side
	// by side, and would all take the gRPC listener's default port.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GRPC_PORT=0"}, env...)
	logs := &apitest.Log{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	p := &Proc{t: t, cmd: cmd, logs: logs, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("logs of %s:\n%s", filepath.Base(bin), logs.String())
		}
	})
	return p
}

// checkRunning fails the test when the process exited or the deadline passed.
func (p *Proc) checkRunning(deadline time.Time) {
	p.t.Helper()
	select {
	case <-p.done:
		p.t.Fatalf("%s exited before it was healthy: %v\n%s", p.cmd.Path, p.err, p.logs.String())
	default:
	}
	if time.Now().After(deadline) {
		p.t.Fatalf("%s not healthy after 30 s:\n%s", p.cmd.Path, p.logs.String())
	}
}

func (p *Proc) waitHealthy(healthPath string, deadline time.Time) {
	p.t.Helper()
	for {
		p.checkRunning(deadline)
		resp, err := http.Get(p.URL + healthPath)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Exec runs bin with args and env (added to a minimal environment) to its end, for
// commands that must not start a server, and returns its exit code and output.
func Exec(t testing.TB, bin string, args []string, env ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// GRPC_PORT=0 unless env says otherwise (a later value wins): test servers run side
	// by side, and would all take the gRPC listener's default port.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GRPC_PORT=0"}, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v still ran after 30 s (did it start a server?):\n%s%s", bin, args, out.String(), errOut.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v", bin, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

// Wait waits for the process to exit and returns its exit code.
func (p *Proc) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode(), nil
	case <-ctx.Done():
		return -1, fmt.Errorf("process still running: %w", ctx.Err())
	}
}

// Logs returns what the process printed so far.
func (p *Proc) Logs() string { return p.logs.String() }

// Pid is the process's id, for commands a test runs as an operator would (kill -HUP).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }
