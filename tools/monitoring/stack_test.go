package monitoring

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// need returns the path of a program the test cannot run without: under CI=true its
// absence fails the test, elsewhere it skips it.
func need(t *testing.T, prog, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing (Debian package %s); .ci/run installs it", prog, pkg)
	}
	t.Skipf("%s is missing (Debian package %s)", prog, pkg)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// lockedBuffer keeps a child's output for the failure message.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 256<<10 {
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a child process the test started; it is stopped at cleanup.
type proc struct {
	name string
	addr string
	out  *lockedBuffer
	done chan struct{}
}

func startProc(t *testing.T, name, addr string, env []string, bin string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	p := &proc{name: name, addr: addr, out: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", name, tail(p.out.String(), 40))
		}
	})
	return p
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitHTTP waits until GET path answers 200.
func (p *proc) waitHTTP(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	c := &http.Client{Timeout: time.Second}
	testkit.Eventually(t, timeout, func() bool {
		select {
		case <-p.done:
			t.Fatalf("%s exited at start:\n%s", p.name, tail(p.out.String(), 40))
		default:
		}
		resp, err := c.Get("http://" + p.addr + path)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, "%s: GET %s 200:\n%s", p.name, path, func() string { return tail(p.out.String(), 40) })
}

// stack is a real inferd server and inferd-worker sharing a real Redis.
type stack struct {
	server, worker *proc
}

// startStack builds the binaries and starts Redis, the server (queue mode, the
// example models) and a worker, and waits until both are ready.
func startStack(t *testing.T) *stack {
	t.Helper()
	redisBin := need(t, "redis-server", "redis-server")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/inferd", "./cmd/inferd-worker")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	redisPort := freePort(t)
	redis := startProc(t, "redis-server", "127.0.0.1:"+strconv.Itoa(redisPort), nil, redisBin,
		"--port", strconv.Itoa(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	waitTCP(t, redis, 10*time.Second)
	queue := "QUEUE_URL=redis://127.0.0.1:" + strconv.Itoa(redisPort) + "/0"
	// The example repository, polled: every process then exports the repository's
	// metrics that the dashboard and the rules watch, each with a cache of its own.
	// Absolute: the processes run in root, where root's own relative path leads nowhere.
	abs, err := filepath.Abs(filepath.Join(root, "models"))
	if err != nil {
		t.Fatal(err)
	}
	models := "MODELS_DIR=" + abs
	poll := "REPOSITORY_POLL_INTERVAL=2s"
	serverAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	s := &stack{
		server: startProc(t, "inferd", serverAddr, []string{"LISTEN_ADDR=" + serverAddr, "GRPC_PORT=0", queue, models, poll, "MODEL_CACHE_DIR=" + t.TempDir(), "LOG_LEVEL=warn"},
			filepath.Join(bin, "inferd")),
	}
	workerAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	s.worker = startProc(t, "inferd-worker", workerAddr, []string{"WORKER_LISTEN_ADDR=" + workerAddr, queue, models, poll, "MODEL_CACHE_DIR=" + t.TempDir(), "LOG_LEVEL=warn"},
		filepath.Join(bin, "inferd-worker"))
	s.server.waitHTTP(t, "/ready", 90*time.Second)
	s.worker.waitHTTP(t, "/ready", 90*time.Second)
	return s
}

func waitTCP(t *testing.T, p *proc, timeout time.Duration) {
	t.Helper()
	testkit.Eventually(t, timeout, func() bool {
		c, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, "%s listening on %s:\n%s", p.name, p.addr, func() string { return tail(p.out.String(), 20) })
}

// get returns the body of GET url, failing the test unless it is 200.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", url, resp.StatusCode, err, b)
	}
	return string(b)
}

// load sends a mix of requests until ctx ends: sync and batch predictions on every
// example model (some routed by rules), bad inputs, async jobs for the worker, model
// listings. Answers are not checked here: the server's own tests do that.
func load(ctx context.Context, server string) {
	bodies := []struct{ path, body string }{
		{"/predict", `{"model":"iris","data":[5.1,3.5,1.4,0.2]}`},
		{"/predict", `{"model":"iris","version":"v2","data":[6.7,3.0,5.2,2.3]}`},
		{"/predict", `{"model":"diabetes","data":[59,2,32.1,101,157,93.2,38,4,4.8598,87]}`},
		{"/predict", `{"model":"digits","data":[0,0,9,16,10,1,0,0,0,0,8,3,16,4,0,0,0,0,0,5,14,2,0,0,0,0,2,16,15,7,0,0,0,0,0,0,3,15,2,0,0,4,6,0,0,13,7,0,0,6,13,1,5,16,3,0,0,0,10,16,15,5,0,0]}`},
		{"/predict/batch", `{"model":"echo","items":[1,2,3,4,5,6,7,8]}`},
		{"/predict/batch", `{"model":"iris","version":"v1","items":[[5.1,3.5,1.4,0.2],[6.7,3.0,5.2,2.3]]}`},
		{"/predict", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4]}`}, // 400
		{"/predict/async", `{"model":"iris","data":[5.1,3.5,1.4,0.2]}`},
		{"/predict/async/batch", `{"model":"echo","items":[{"a":1},{"b":2}]}`},
	}
	c := &http.Client{Timeout: 10 * time.Second}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; ctx.Err() == nil; i++ {
				b := bodies[i%len(bodies)]
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+server+b.path, strings.NewReader(b.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-API-Key", "dev-key")
				if resp, err := c.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				time.Sleep(5 * time.Millisecond) // the load's pace: the next request to the child inferd
			}
		}()
	}
	wg.Wait()
}

func promtoolCheck(t *testing.T, promtool, what, exposition string) {
	t.Helper()
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(exposition)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics on %s: %v\n%s", what, err, out)
		return
	}
	fmt.Printf("promtool check metrics: %s /metrics clean (%d metric families)\n", what, strings.Count(exposition, "# TYPE "))
}
