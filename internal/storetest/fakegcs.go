package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testport"
)

// fakeGCSStart bounds how long fake-gcs-server may take to answer its health check, on
// a machine that runs other test binaries beside it.
const fakeGCSStart = 30 * time.Second

// FakeGCS is a bucket in a fake-gcs-server of the test's own, on a free port, keeping
// its objects in a directory so that a Stop and a Start keep them. Its repository is
// below a prefix, so that keys are shown to be relative to it. fake-gcs-server gives
// an object a new generation at every write (the time in microseconds), as GCS does,
// but ignores a read's generation condition: a Store must check the generation it was
// answered with too.
type FakeGCS struct {
	bin, dir, logs string
	port           int
	client         *http.Client

	mu     sync.Mutex
	proc   *os.Process
	exited chan struct{}
}

const (
	fakeGCSBucket = "inferd-models"
	fakeGCSPrefix = "repo"
)

// NewFakeGCS starts fake-gcs-server, built from tools/go.mod, with an empty bucket, and
// kills it when the test ends. Without the tool it skips the test, or fails it under
// CI=true; with -short it skips it (it builds and runs a binary, left to make test).
func NewFakeGCS(t testing.TB) *FakeGCS {
	t.Helper()
	bin := Tool(t, "github.com/fsouza/fake-gcs-server")
	var err error
	g := &FakeGCS{bin: bin, dir: t.TempDir(), client: &http.Client{Timeout: 30 * time.Second}}
	g.logs = filepath.Join(g.dir, "fake-gcs-server.log")
	t.Cleanup(func() {
		g.kill()
		if t.Failed() {
			b, _ := os.ReadFile(g.logs)
			t.Logf("logs of fake-gcs-server:\n%s", b)
		}
	})
	// A port found free can be taken before the server binds it; try a few.
	for range 3 {
		if g.port, err = testport.Free(); err != nil {
			t.Fatal(err)
		}
		if err = g.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("starting fake-gcs-server: %v", err)
	}
	body, _ := json.Marshal(map[string]string{"name": fakeGCSBucket})
	g.do(t, http.MethodPost, "/storage/v1/b", "application/json", body, http.StatusOK)
	return g
}

// URL is gs://inferd-models/repo.
func (g *FakeGCS) URL() string { return "gs://" + fakeGCSBucket + "/" + fakeGCSPrefix }

// Env points the Google client library at the server (it then sends no credentials).
func (g *FakeGCS) Env() []string { return []string{"STORAGE_EMULATOR_HOST=" + g.Host()} }

// Host is the server's address as STORAGE_EMULATOR_HOST takes it: http://127.0.0.1:PORT.
func (g *FakeGCS) Host() string { return "http://127.0.0.1:" + strconv.Itoa(g.port) }

// Put uploads the object with the JSON API's media upload, as a user's tool would.
func (g *FakeGCS) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	q := url.Values{"uploadType": {"media"}, "name": {fakeGCSPrefix + "/" + key}}
	g.do(t, http.MethodPost, "/upload/storage/v1/b/"+fakeGCSBucket+"/o?"+q.Encode(), "application/octet-stream", data, http.StatusOK)
}

// Delete removes the object; a missing one is no error.
func (g *FakeGCS) Delete(t testing.TB, key string) {
	t.Helper()
	g.do(t, http.MethodDelete, "/storage/v1/b/"+fakeGCSBucket+"/o/"+url.PathEscape(fakeGCSPrefix+"/"+key), "", nil,
		http.StatusOK, http.StatusNoContent, http.StatusNotFound)
}

// Stop kills the server (SIGKILL): connections to its port are then refused.
func (g *FakeGCS) Stop(t testing.TB) {
	t.Helper()
	g.kill()
}

// Start runs the server again on its port, over the objects it kept.
func (g *FakeGCS) Start(t testing.TB) {
	t.Helper()
	g.kill()
	var err error
	// The dead process's socket may linger for a moment.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err = g.start(); err == nil {
			return
		}
	}
	t.Fatalf("restarting fake-gcs-server on port %d: %v", g.port, err)
}

// do sends one request to the server and fails the test on an answer other than want.
func (g *FakeGCS) do(t testing.TB, method, path, contentType string, body []byte, want ...int) {
	t.Helper()
	req, err := http.NewRequest(method, g.Host()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, w := range want {
		if resp.StatusCode == w {
			return
		}
	}
	t.Fatalf("%s %s: %s\n%s", method, path, resp.Status, b)
}

func (g *FakeGCS) start() error {
	logs, err := os.OpenFile(g.logs, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logs.Close()
	addr := "127.0.0.1:" + strconv.Itoa(g.port)
	// -public-host is the address itself: the client library reads objects with
	// GCS's XML API (GET /bucket/object), which fake-gcs-server routes only for
	// requests to its public host.
	cmd := exec.Command(g.bin, "-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(g.port),
		"-public-host", addr, "-external-url", g.Host(),
		"-backend", "filesystem", "-filesystem-root", filepath.Join(g.dir, "data"), "-log-level", "warn")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	for deadline := time.Now().Add(fakeGCSStart); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			b, _ := os.ReadFile(g.logs)
			return fmt.Errorf("fake-gcs-server exited at start:\n%s", b)
		default:
		}
		if resp, err := g.client.Get(g.Host() + "/_internal/healthcheck"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("fake-gcs-server did not answer on %s within %s", addr, fakeGCSStart)
		}
	}
	g.mu.Lock()
	g.proc, g.exited = cmd.Process, exited
	g.mu.Unlock()
	return nil
}

func (g *FakeGCS) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.proc == nil {
		return
	}
	_ = g.proc.Kill()
	<-g.exited
	g.proc, g.exited = nil, nil
}
