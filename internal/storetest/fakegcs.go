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
	"testing"
	"time"
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
	process
	dir    string
	client *http.Client
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
	g := &FakeGCS{dir: t.TempDir(), client: &http.Client{Timeout: 30 * time.Second}}
	g.process = process{
		name:   "fake-gcs-server",
		log:    filepath.Join(g.dir, "fake-gcs-server.log"),
		within: fakeGCSStart,
		cmd: func(port int) *exec.Cmd {
			// -public-host is the address itself: the client library reads objects with
			// GCS's XML API (GET /bucket/object), which fake-gcs-server routes only for
			// requests to its public host.
			return exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(port),
				"-public-host", "127.0.0.1:"+strconv.Itoa(port), "-external-url", g.Host(),
				"-backend", "filesystem", "-filesystem-root", filepath.Join(g.dir, "data"), "-log-level", "warn")
		},
		ready: g.answers,
	}
	t.Cleanup(func() {
		g.kill()
		if t.Failed() {
			b, _ := os.ReadFile(g.log)
			t.Logf("logs of fake-gcs-server:\n%s", b)
		}
	})
	g.open(t)
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
	g.restart(t, 10*time.Second, 50*time.Millisecond)
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

// answers is nil once the server answers its health check.
func (g *FakeGCS) answers() error {
	resp, err := g.client.Get(g.Host() + "/_internal/healthcheck")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: %s", resp.Status)
	}
	return nil
}
