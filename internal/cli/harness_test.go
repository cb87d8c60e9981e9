package cli_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/proctest"
)

// server is a real inferd process behind a proxy that validates every answer against
// openapi.yaml (apitest.Transport): inferctl talks to the proxy, so no response it
// reads escapes the contract.
type server struct {
	URL string // the proxy's

	mu       sync.Mutex
	statuses map[string][]int // "METHOD /path" -> statuses answered, in order
	// before17 makes the proxy refuse a body naming on_error as a server before
	// contract 1.7.0 did, with a problem of its own (no server sees the request).
	before17 atomic.Bool
}

// refusalBefore17 is how a server before contract 1.7.0 answered a batch with on_error.
const refusalBefore17 = `{"type":"https://inferd.dev/problems/invalid_request","title":"Invalid request","status":400,` +
	`"detail":"request body has an error: doesn't match schema: property \"on_error\" is unsupported","code":"invalid_request","request_id":"old-server"}`

// startServer runs inferd on the example models (plus `slow`, an echo that takes
// a minute per call, for jobs that are still running when cancelled) with env added.
func startServer(t testing.TB, env ...string) *server {
	t.Helper()
	models := proctest.ExampleModels(t)
	proctest.AddSlowModel(t, models, "slow", "v1", time.Minute)
	return start(t, models, env...)
}

// startExampleServer runs inferd on the example repository alone, as `make run` does.
func startExampleServer(t testing.TB) *server {
	t.Helper()
	return start(t, filepath.Join(repoRoot(t), "models"))
}

func start(t testing.TB, models string, env ...string) *server {
	t.Helper()
	onnxtest.Runtime(t) // the example models need ONNX Runtime: fail under CI, skip elsewhere
	bin := proctest.Build(t, "inferd")
	port := proctest.FreePort(t)
	p := proctest.Start(t, bin, port, "/ready", append([]string{
		"PORT=" + strconv.Itoa(port), "MODELS_DIR=" + models, "RATE_LIMIT_RPS=0",
	}, env...)...)
	target, _ := url.Parse(p.URL)
	s := &server{statuses: map[string][]int{}}
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: recorder{s, apitest.Transport(t, nil)},
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The validator reads the request body through GetBody: keep a copy.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if s.before17.Load() && bytes.Contains(body, []byte(`"on_error"`)) {
			s.mu.Lock()
			s.statuses[r.Method+" "+r.URL.Path] = append(s.statuses[r.Method+" "+r.URL.Path], http.StatusBadRequest)
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, refusalBefore17)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// seen returns the statuses answered to method path so far.
func (s *server) seen(method, path string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.statuses[method+" "+path]...)
}

// result is one run of inferctl.
type result struct {
	code           int
	stdout, stderr string
}

// inferctl runs the built inferctl in the repository's root with env (INFERD_URL,
// INFERD_API_KEY, ...) and stdin, and waits for it.
func inferctl(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(proctest.Build(t, "inferctl"), args...)
	cmd.Dir = repoRoot(t)
	// GORACE: a -race binary otherwise sleeps a second at exit.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GORACE=atexit_sleep_ms=0"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("inferctl %s did not end; stderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	if strings.Contains(r.stderr, "WARNING: DATA RACE") {
		t.Errorf("inferctl %s raced:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// recorder notes the status of every answer that passes the proxy.
type recorder struct {
	s    *server
	next http.RoundTripper
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil {
		r.s.mu.Lock()
		k := req.Method + " " + req.URL.Path
		r.s.statuses[k] = append(r.s.statuses[k], resp.StatusCode)
		r.s.mu.Unlock()
	}
	return resp, err
}
