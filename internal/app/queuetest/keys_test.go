package queuetest

import (
	"encoding/json"
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

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/readmetest"
	"github.com/inferd/inferd/internal/testkit"
)

// The keys of these tests, named as docs/operations.md's example names them. opsKey
// stays in every version of the file: it reads the jobs of the keys that come and go.
const (
	oldKey   = "old-key"
	newKey   = "new-key"
	otherKey = "other-key"
	opsKey   = "ops-key"

	oldKeys    = oldKey + ":predict+read_models\n" + opsKey + ":predict+read_models+admin\n"
	newKeys    = newKey + ":predict+read_models\n" + opsKey + ":predict+read_models+admin\n"
	brokenKeys = otherKey + ":predict\n" + newKey + " predict\n" // entry 2 lacks its ':'
)

// keysFile is an API_KEYS_FILE replaced as docs/operations.md tells operators to: a
// new file renamed over the old one, so no server reads it half written.
type keysFile struct {
	tb   testing.TB
	path string
}

func newKeysFile(tb testing.TB, text string) *keysFile {
	f := &keysFile{tb: tb, path: filepath.Join(tb.TempDir(), "api-keys")}
	f.write(text)
	return f
}

func (f *keysFile) write(text string) {
	f.tb.Helper()
	tmp := f.path + ".new"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		f.tb.Fatal(err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		f.tb.Fatal(err)
	}
}

// status is the status of a synchronous prediction with key.
func (s *server) status(tb testing.TB, key string) int {
	tb.Helper()
	return s.api.Do(s.api.NewRequest(http.MethodPost, "/predict", key, single("echo", "v1", `{"x":1}`))).Status
}

// submitAs submits an echo job with key and returns its id.
func (s *server) submitAs(tb testing.TB, key string) string {
	tb.Helper()
	resp := s.api.Do(s.api.NewRequest(http.MethodPost, "/predict/async", key, single("echo", "v1", `{"k":1}`)))
	var out struct {
		JobID string `json:"job_id"`
	}
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &out) != nil || out.JobID == "" {
		tb.Fatalf("submit: status %d: %s", resp.Status, resp.Body)
	}
	return out.JobID
}

// waitSucceeded polls a job with key until it succeeded.
func (s *server) waitSucceeded(tb testing.TB, id, key string) {
	tb.Helper()
	testkit.Eventually(tb, 30*time.Second, func() bool {
		var rec jobRecord
		resp := s.api.Do(s.api.NewRequest(http.MethodGet, "/predict/async/"+id, key, nil))
		if resp.Status != http.StatusOK {
			tb.Fatalf("poll %s: status %d: %s", id, resp.Status, resp.Body)
		}
		resp.JSON(tb, &rec)
		if rec.final() && rec.Status != "succeeded" {
			tb.Fatalf("job %s ended %s: %+v", id, rec.Status, rec)
		}
		return rec.Status == "succeeded"
	}, "job %s succeeded", id)
}

// keysSection is docs/operations.md's section on changing the keys.
const keysSection = "## Changing the API keys"

// docCommands are the commands of keysSection's example, comments dropped: the new
// file written beside the old one (newKeys), renamed over it, and a SIGHUP.
func docCommands(tb testing.TB) []string {
	tb.Helper()
	section := readmetest.FileSection(tb, "docs/operations.md", keysSection)
	_, block, ok := strings.Cut(section, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(l, " # ")
		out = append(out, strings.TrimSpace(cmd))
	}
	if !ok || len(out) != 3 || !strings.HasPrefix(out[2], "kill -HUP ") {
		tb.Fatalf("docs/operations.md %q: want an sh example of three commands, the last kill -HUP; got %q", keysSection, out)
	}
	return out
}

// run runs a command of the example in the keys file's directory, as an operator
// would in a shell.
func (f *keysFile) run(tb testing.TB, command string) {
	tb.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = filepath.Dir(f.path)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", command, err, out)
	}
}

// revokeAsDocumented replaces the keys by docs/operations.md's example: newKeys,
// without oldKey.
func (f *keysFile) revokeAsDocumented(tb testing.TB) {
	tb.Helper()
	cmds := docCommands(tb)
	f.run(tb, cmds[0])
	f.run(tb, cmds[1])
	if b, err := os.ReadFile(f.path); err != nil || string(b) != newKeys {
		tb.Fatalf("after the example, the keys file holds %q (%v), want %q", b, err, newKeys)
	}
}

// hupAsDocumented sends SIGHUP to p with the example's command.
func (f *keysFile) hupAsDocumented(tb testing.TB, p *proctest.Proc) {
	tb.Helper()
	f.run(tb, strings.Replace(docCommands(tb)[2], "<pid of inferd>", strconv.Itoa(p.Pid()), 1))
}

// docLogLines are the log lines keysSection shows, each to be found in a server's
// log; it also checks the section states the default interval the test measures.
func docLogLines(tb testing.TB) []string {
	tb.Helper()
	section := readmetest.FileSection(tb, "docs/operations.md", keysSection)
	// The time the section states is the one the test holds the servers to.
	if stated := "`KEYS_RELOAD_INTERVAL` (`" + config.DefaultKeysReloadInterval.String() + "` by default)"; !strings.Contains(section, stated) {
		tb.Errorf("docs/operations.md %q does not state %s", keysSection, stated)
	}
	var out []string
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "time=") {
			out = append(out, l)
		}
	}
	if len(out) < 2 {
		tb.Fatalf("docs/operations.md %q shows %d log lines, want the reload's and the broken file's", keysSection, len(out))
	}
	return out
}

// logged reports whether a line of the process's log is what want shows.
func logged(p *proctest.Proc, want string) bool {
	for _, l := range strings.Split(p.Logs(), "\n") {
		if readmetest.Line(want, l) == nil {
			return true
		}
	}
	return false
}

// TestKeysRevokedWithoutRestart runs two API servers and a worker on one Redis, the
// servers reading one API_KEYS_FILE at the default KEYS_RELOAD_INTERVAL, while a
// client sends predictions and jobs with a key through both. The key is revoked in
// the file: each server refuses it (401) within the interval, and accepts the key
// added in its place, whose jobs the worker runs; the jobs the revoked key submitted
// before still run. Then the file is broken: both servers log why and count it, and
// the keys in force stay exactly as they were.
func TestKeysRevokedWithoutRestart(t *testing.T) {
	t.Parallel()
	interval := config.DefaultKeysReloadInterval
	// A margin for a loaded machine running -race builds: a reading takes a
	// millisecond, but the ticker and the request are scheduled among everything else.
	const slack = time.Second
	c := newCluster(t)
	file := newKeysFile(t, oldKeys)
	// No throttle of failed keys: the revoked key's 401s must stay 401s.
	env := []string{"API_KEYS_FILE=" + file.path, "AUTH_FAILURES_PER_MINUTE=0"}
	servers := []*server{c.startServer(env...), c.startServer(env...)}
	w := c.startWorker()
	docLines := docLogLines(t)

	// A client per server sends with oldKey until it is refused; one request in five
	// submits a job. Anything but 200 before the first 401 fails the test.
	type sender struct {
		ok        int
		jobs      []string
		refusedAt time.Time
	}
	senders := make([]sender, len(servers))
	var started sync.WaitGroup
	started.Add(len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			out := &senders[i]
			defer func() {
				if out.ok < 20 {
					started.Done() // the test fails below; do not hold it
				}
			}()
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
				req := s.api.NewRequest(http.MethodPost, "/predict", oldKey, single("echo", "v1", `{"x":1}`))
				if out.ok%5 == 4 {
					req = s.api.NewRequest(http.MethodPost, "/predict/async", oldKey, single("echo", "v1", `{"k":1}`))
				}
				resp, err := s.api.TryDo(req)
				switch {
				case err != nil:
					t.Errorf("server %d: %v", i, err)
					return
				case resp.Status == http.StatusUnauthorized:
					out.refusedAt = time.Now()
					return
				case resp.Status != http.StatusOK:
					t.Errorf("server %d: status %d: %s", i, resp.Status, resp.Body)
					return
				}
				if req.URL.Path == "/predict/async" {
					var job struct {
						JobID string `json:"job_id"`
					}
					if err := json.Unmarshal(resp.Body, &job); err != nil {
						t.Errorf("server %d: %s: %v", i, resp.Body, err)
						return
					}
					out.jobs = append(out.jobs, job.JobID)
				}
				if out.ok++; out.ok == 20 {
					started.Done()
				}
			}
			t.Errorf("server %d still accepts the key after a minute", i)
		})
	}
	started.Wait()
	if t.Failed() {
		wg.Wait()
		t.FailNow()
	}

	revoked := time.Now()
	file.revokeAsDocumented(t)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i, s := range senders {
		took := s.refusedAt.Sub(revoked)
		t.Logf("server %d: %d requests accepted, then the revoked key refused %s after the file changed (KEYS_RELOAD_INTERVAL %s)",
			i, s.ok, took.Round(time.Millisecond), interval)
		if took > interval+slack {
			t.Errorf("server %d refused the revoked key %s after the change, want within %s (+%s)", i, took, interval, slack)
		}
	}
	for i, s := range servers {
		if st := s.status(t, oldKey); st != http.StatusUnauthorized {
			t.Errorf("server %d: the revoked key: status %d, want 401", i, st)
		}
		if st := s.status(t, newKey); st != http.StatusOK {
			t.Errorf("server %d: the new key: status %d, want 200", i, st)
		}
		if n := metric(t, s.Proc, "inferd_api_keys"); n != 2 {
			t.Errorf("server %d: inferd_api_keys = %v, want 2", i, n)
		}
		if at := metric(t, s.Proc, "inferd_api_keys_loaded_timestamp_seconds"); at < float64(revoked.Unix()) {
			t.Errorf("server %d: inferd_api_keys_loaded_timestamp_seconds = %v, before the change at %d", i, at, revoked.Unix())
		}
		// Lines below warnings reach the log within logbuf's delay, not at once.
		testkit.Eventually(t, 5*time.Second, func() bool { return logged(s.Proc, docLines[0]) }, "server %d logs the reload as docs/operations.md shows it:\n%s", i, docLines[0])
	}
	// The worker holds no keys: jobs of the new key, submitted through one server and
	// read through the other, run as before; those the revoked key submitted while it
	// was valid ran too, and an admin key reads them.
	servers[1].waitSucceeded(t, servers[0].submitAs(t, newKey), newKey)
	for i, s := range senders {
		if len(s.jobs) == 0 {
			t.Fatalf("sender %d submitted no job", i)
		}
		for _, id := range s.jobs {
			servers[1-i].waitSucceeded(t, id, opsKey)
		}
	}

	// A broken file: each server says why, counts it, and keeps the keys in force.
	before := make([][2]float64, len(servers))
	for i, s := range servers {
		before[i] = [2]float64{metric(t, s.Proc, "inferd_api_keys_loaded_timestamp_seconds"), metric(t, s.Proc, "inferd_api_keys_reload_failures_total")}
		if before[i][1] != 0 {
			t.Errorf("server %d counted %v failed reloads of a good file", i, before[i][1])
		}
	}
	file.write(brokenKeys)
	for i, s := range servers {
		// What is claimed here is that nothing changes, not how soon the log says so: a
		// wide deadline, as a machine running other tests may starve a -race server.
		testkit.Eventually(t, 5*interval, func() bool { return logged(s.Proc, docLines[1]) }, "server %d logs the broken file", i)
		if n := metric(t, s.Proc, "inferd_api_keys_reload_failures_total"); n < 1 {
			t.Errorf("server %d: inferd_api_keys_reload_failures_total = %v after the broken file, want at least 1", i, n)
		}
		if at := metric(t, s.Proc, "inferd_api_keys_loaded_timestamp_seconds"); at != before[i][0] {
			t.Errorf("server %d: inferd_api_keys_loaded_timestamp_seconds moved from %v to %v with a broken file", i, before[i][0], at)
		}
		for key, want := range map[string]int{newKey: 200, opsKey: 200, oldKey: 401, otherKey: 401} {
			if st := s.status(t, key); st != want {
				t.Errorf("server %d with the broken file: %s answered %d, want %d", i, key, st, want)
			}
		}
		for _, key := range []string{oldKey, newKey, otherKey, opsKey} {
			if strings.Contains(s.Logs(), key) {
				t.Errorf("server %d logged the key %s", i, key)
			}
		}
	}
	if exited(w.Proc) || probe(w.Proc, "/ready") != http.StatusOK {
		t.Errorf("the worker is not ready at the end:\n%s", w.Logs())
	}
}

// TestKeysReloadOnSIGHUP runs two servers that read API_KEYS_FILE only on SIGHUP
// (KEYS_RELOAD_INTERVAL=0s) and a worker. The file changes; a SIGHUP to one server
// puts the change in force there at once, while the other still serves the old keys
// until it gets its own. A SIGHUP with a broken file keeps the keys; one to the worker,
// which holds no keys, is logged and changes nothing.
func TestKeysReloadOnSIGHUP(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	file := newKeysFile(t, oldKeys)
	env := []string{"API_KEYS_FILE=" + file.path, "KEYS_RELOAD_INTERVAL=0s", "AUTH_FAILURES_PER_MINUTE=0"}
	servers := []*server{c.startServer(env...), c.startServer(env...)}
	w := c.startWorker()

	file.revokeAsDocumented(t)
	for i, s := range servers {
		if st := s.status(t, oldKey); st != http.StatusOK {
			t.Fatalf("server %d: the old key before any SIGHUP: status %d, want 200 (KEYS_RELOAD_INTERVAL=0s reads the file on SIGHUP only)", i, st)
		}
		hup := time.Now()
		file.hupAsDocumented(t, s.Proc)
		testkit.Eventually(t, 5*time.Second, func() bool {
			return s.status(t, oldKey) == http.StatusUnauthorized
		}, "server %d refuses the old key after SIGHUP", i)
		t.Logf("server %d: the old key refused %s after SIGHUP", i, time.Since(hup).Round(time.Millisecond))
		if st := s.status(t, newKey); st != http.StatusOK {
			t.Errorf("server %d: the new key after SIGHUP: status %d, want 200", i, st)
		}
		testkit.Eventually(t, 5*time.Second, func() bool {
			return strings.Contains(s.Logs(), `msg="API keys reloaded" reason=SIGHUP keys=2`)
		}, "server %d logs the reload on SIGHUP", i)
		if i == 0 {
			if st := servers[1].status(t, oldKey); st != http.StatusOK {
				t.Errorf("server 1, before its own SIGHUP: the old key answered %d, want 200", st)
			}
		}
	}

	file.write(brokenKeys)
	servers[0].Signal(syscall.SIGHUP)
	testkit.Eventually(t, 5*time.Second, func() bool {
		return strings.Contains(servers[0].Logs(), `reason=SIGHUP error="malformed API key entry: API_KEYS_FILE `+file.path+` entry 2: missing ':'`)
	}, "the broken file logged on SIGHUP")
	if n := metric(t, servers[0].Proc, "inferd_api_keys_reload_failures_total"); n != 1 {
		t.Errorf("inferd_api_keys_reload_failures_total = %v, want 1", n)
	}
	if st := servers[0].status(t, newKey); st != http.StatusOK {
		t.Errorf("the new key with a broken file: status %d, want 200", st)
	}

	w.Signal(syscall.SIGHUP)
	testkit.Eventually(t, 5*time.Second, func() bool {
		return strings.Contains(w.Logs(), "SIGHUP: inferd-worker authenticates nobody and holds no API keys")
	}, "the worker logs the SIGHUP")
	if exited(w.Proc) || probe(w.Proc, "/ready") != http.StatusOK {
		t.Fatalf("the worker did not survive SIGHUP:\n%s", w.Logs())
	}
	servers[1].waitSucceeded(t, servers[1].submitAs(t, newKey), newKey)
}
