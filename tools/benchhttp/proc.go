package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is a child process the harness started and stops.
type Proc struct {
	Name string
	URL  string // http://127.0.0.1:<port> of its HTTP port
	cmd  *exec.Cmd
	out  *capped
	done chan struct{}
}

// freePort is a loopback port nobody listens on now; a child binds it a moment later.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs bin in dir with env added to the harness's environment, and waits until
// GET readyPath answers 200 (readyPath empty: until the port accepts connections).
func start(name, dir, bin string, port int, readyPath string, env []string, args ...string) (*Proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	// Children keep the first lines of their output for an error message; the rest,
	// a log line per request, would cost the harness memory and tell nothing.
	out := &capped{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Proc{Name: name, URL: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	if err := p.waitReady(readyPath, 60*time.Second); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

func (p *Proc) waitReady(path string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited at start: %s", p.Name, firstLines(p.out.String(), 20))
		case <-ctx.Done():
			return fmt.Errorf("%s not ready within %s: %s", p.Name, timeout, firstLines(p.out.String(), 20))
		case <-time.After(20 * time.Millisecond):
		}
		if path == "" {
			if conn, err := net.DialTimeout("tcp", strings.TrimPrefix(p.URL, "http://"), time.Second); err == nil {
				conn.Close()
				return nil
			}
			continue
		}
		resp, err := c.Get(p.URL + path)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
}

// Pid is the process id, for reading its RSS.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stop asks the process to end (SIGTERM), and kills it if it lingers.
func (p *Proc) Stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// RSSKB is VmRSS of /proc/<pid>/status, in KiB.
func RSSKB(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS line for pid %d", pid)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100 on
// every Linux architecture Go runs on (the standard library cannot ask sysconf).
const clockTicks = 100

// CPUTime is the CPU time, user and system, that process pid has used so far.
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// Fields are counted after the command name, which is in parentheses and may hold
	// spaces: utime and stime are the 14th and 15th fields of the line.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
