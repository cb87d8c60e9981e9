package proctest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildMu  sync.Mutex
	builtDir string
	built    = map[string]string{}
)

// Build compiles the command in cmd/<name> once per test binary and returns its path.
func Build(t testing.TB, name string) string {
	t.Helper()
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

// FreePort returns a TCP port nobody listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Proc is a running binary.
type Proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	logs *syncBuffer
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
	cmd := exec.Command(bin)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	p := &Proc{t: t, cmd: cmd, logs: logs, done: make(chan struct{}), URL: "http://127.0.0.1:" + strconv.Itoa(port)}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("logs of %s:\n%s", filepath.Base(bin), logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("%s exited before it was healthy: %v\n%s", bin, p.err, logs.String())
		default:
		}
		resp, err := http.Get(p.URL + healthPath)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s not healthy after 30 s:\n%s", bin, logs.String())
	return nil
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

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
