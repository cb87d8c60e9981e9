package main_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/redistest"
)

func contractVersion(t *testing.T) string {
	t.Helper()
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	return spec.Info.Version
}

// TestCommandLine runs both binaries with each command line a user may try. None of
// them may start a server: each must exit by itself (proctest.Exec fails a process
// that still runs after 30 s), and none may log that it listens.
func TestCommandLine(t *testing.T) {
	contract := regexp.QuoteMeta(contractVersion(t))
	for _, name := range []string{"inferd", "inferd-worker"} {
		bin := proctest.Build(t, name)
		env := []string{
			"PORT=" + strconv.Itoa(proctest.FreePort(t)), "WORKER_PORT=" + strconv.Itoa(proctest.FreePort(t)),
			"MODELS_DIR=" + t.TempDir(), "QUEUE_URL=redis://127.0.0.1:1/0",
		}
		usage := "^Usage: " + name + ` \[--help\] \[--version\] \[--healthcheck\]\n`
		version := "^" + name + ` version \S+, commit \S+, contract ` + contract + "\n$"
		tests := []struct {
			args           []string
			code           int
			stdout, stderr string // regular expressions; "" means empty
		}{
			{[]string{"--help"}, 0, usage, ""},
			{[]string{"-h"}, 0, usage, ""},
			{[]string{"-help"}, 0, usage, ""},
			{[]string{"--version"}, 0, version, ""},
			{[]string{"-version"}, 0, version, ""},
			{[]string{"--port=9000"}, 2, "", "^" + name + `: flag provided but not defined: -port \(see ` + name + " --help\\)\n$"},
			{[]string{"--version=maybe"}, 2, "", "^" + name + `: invalid boolean value "maybe" for -version: .*\n$`},
			{[]string{"serve"}, 2, "", "^" + name + `: unexpected argument "serve": settings are environment variables \(see ` + name + " --help\\)\n$"},
			{[]string{"--version", "now"}, 2, "", `^\S+: unexpected argument "now".*\n$`},
		}
		for _, tt := range tests {
			t.Run(name+" "+strings.Join(tt.args, " "), func(t *testing.T) {
				code, stdout, stderr := proctest.Exec(t, bin, tt.args, env...)
				if code != tt.code {
					t.Errorf("exit code %d, want %d", code, tt.code)
				}
				for _, out := range []struct{ name, got, want string }{{"stdout", stdout, tt.stdout}, {"stderr", stderr, tt.stderr}} {
					if out.want == "" && out.got != "" || out.want != "" && !regexp.MustCompile(out.want).MatchString(out.got) {
						t.Errorf("%s:\n%s\nwant it to match %s", out.name, out.got, out.want)
					}
				}
				if strings.Contains(stdout+stderr, "level=") { // a log line: it went past the command line
					t.Error("it started a server")
				}
			})
		}
		t.Run(name+" --help lists every setting", func(t *testing.T) {
			_, stdout, _ := proctest.Exec(t, bin, []string{"--help"}, env...)
			for _, s := range config.Settings() {
				line := fmt.Sprintf("\n  %s (default: %s)\n      ", s.Name, config.Plain(s.DefaultText()))
				if !strings.Contains(stdout, line) {
					t.Errorf("--help lacks %q", line)
				}
			}
		})
	}
}

// TestHealthcheck runs --healthcheck, the containers' probe, against a server and a
// worker started with the same settings, and against nothing.
func TestHealthcheck(t *testing.T) {
	redis := redistest.Start(t)
	for _, tt := range []struct{ name, portVar, addrVar string }{
		{"inferd", "PORT", "LISTEN_ADDR"},
		{"inferd-worker", "WORKER_PORT", "WORKER_LISTEN_ADDR"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := proctest.Build(t, tt.name)
			port := proctest.FreePort(t)
			env := []string{tt.portVar + "=" + strconv.Itoa(port), "MODELS_DIR=" + t.TempDir(), "QUEUE_URL=" + redis.URL()}
			t.Run("nothing listens", func(t *testing.T) {
				code, stdout, stderr := proctest.Exec(t, bin, []string{"--healthcheck"}, env...)
				if code != 1 || stdout != "" || !strings.Contains(stderr, "--healthcheck: ") || !strings.Contains(stderr, "connection refused") {
					t.Errorf("exit code %d, stdout %q, stderr %q; want 1 and connection refused", code, stdout, stderr)
				}
			})
			t.Run("a port only the process knows", func(t *testing.T) {
				code, _, stderr := proctest.Exec(t, bin, []string{"--healthcheck"}, append(env, tt.addrVar+"=127.0.0.1:0")...)
				if code != 2 || !strings.Contains(stderr, "set a fixed port to probe it") {
					t.Errorf("exit code %d, stderr %q; want 2", code, stderr)
				}
			})
			t.Run("bad settings", func(t *testing.T) {
				code, _, stderr := proctest.Exec(t, bin, []string{"--healthcheck"}, append(env, "LOG_LEVEL=loud")...)
				if code != 2 || !strings.Contains(stderr, "invalid settings") {
					t.Errorf("exit code %d, stderr %q; want 2", code, stderr)
				}
			})
			proctest.Start(t, bin, port, "/health", env...)
			t.Run("it runs", func(t *testing.T) {
				code, stdout, stderr := proctest.Exec(t, bin, []string{"--healthcheck"}, env...)
				want := fmt.Sprintf("%s: GET http://127.0.0.1:%d/health answered 200 OK\n", tt.name, port)
				if code != 0 || stdout != want || stderr != "" {
					t.Errorf("exit code %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, want)
				}
			})
		})
	}
}

// TestMakeBuildStampsVersion builds as `make build` does and checks --version reports
// what git says of the work tree, and the contract's info.version.
func TestMakeBuildStampsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make build, an optimised build of every command; runs without -short (make test)")
	}
	root := repoRoot(t)
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("git %v: %v (CI=true needs a git checkout)", args, err)
			}
			t.Skipf("not a git checkout: git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	commit := git("rev-parse", "--short=12", "HEAD")
	describe := git("describe", "--tags", "--always", "--dirty")
	dir := t.TempDir()
	cmd := exec.Command("make", "-C", root, "build", "BIN="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	for _, name := range []string{"inferd", "inferd-worker"} {
		t.Run(name, func(t *testing.T) {
			_, stdout, _ := proctest.Exec(t, dir+"/"+name, []string{"--version"})
			want := fmt.Sprintf("%s version %s, commit %s, contract %s\n", name, describe, commit, contractVersion(t))
			if stdout != want {
				t.Errorf("--version says\n%s\nwant\n%s", stdout, want)
			}
		})
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(strings.TrimSpace(string(out)), "/go.mod")
}

// TestListenAddr: LISTEN_ADDR overrides PORT, binds only the interface it names, and
// :0 takes a free port that the log names.
func TestListenAddr(t *testing.T) {
	bin := proctest.Build(t, "inferd")
	port := proctest.FreePort(t)
	// Once ready, not just live, so that HEAD /ready below cannot meet the loading 503.
	p := proctest.StartListening(t, bin, "/ready",
		"PORT="+strconv.Itoa(port), "LISTEN_ADDR=127.0.0.1:0", "MODELS_DIR="+t.TempDir())
	if !regexp.MustCompile(`msg=listening addr=127\.0\.0\.1:\d+ `).MatchString(p.Logs()) {
		t.Errorf("the log does not name the bound address:\n%s", p.Logs())
	}
	if p.URL == "http://127.0.0.1:"+strconv.Itoa(port) {
		t.Error("it listens on PORT")
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		c.Close()
		t.Error("something listens on PORT although LISTEN_ADDR overrides it")
	}
	c := apitest.New(t, p.URL)
	for _, path := range []string{"/health", "/ready", "/metrics", "/openapi.yaml", "/openapi.json"} {
		t.Run("HEAD "+path, func(t *testing.T) {
			head := c.Do(c.NewRequest(http.MethodHead, path, "", nil))
			if head.Status != http.StatusOK || len(head.Body) != 0 {
				t.Errorf("status %d, %d bytes of body", head.Status, len(head.Body))
			}
			c.Get(path, "") // and apitest compares the GET with its HEAD
		})
	}

	t.Run("a bad LISTEN_ADDR", func(t *testing.T) {
		code, _, stderr := proctest.Exec(t, bin, nil, "LISTEN_ADDR=9000", "MODELS_DIR="+t.TempDir())
		if code != 2 || !strings.Contains(stderr, `LISTEN_ADDR="9000": want host:port`) {
			t.Errorf("exit code %d: %s", code, stderr)
		}
	})
}

// TestQueueDashboardHead: in queue mode the server mounts asynqmon, outside the
// generated server; HEAD reaches it too, behind the same admin check.
func TestQueueDashboardHead(t *testing.T) {
	redis := redistest.Start(t)
	bin := proctest.Build(t, "inferd")
	p := proctest.StartListening(t, bin, "/health",
		"LISTEN_ADDR=127.0.0.1:0", "MODELS_DIR="+t.TempDir(), "QUEUE_URL="+redis.URL())
	c := apitest.New(t, p.URL)
	for _, tt := range []struct {
		key    string
		status int
	}{{"admin-key", http.StatusOK}, {"dev-key", http.StatusForbidden}, {"", http.StatusUnauthorized}} {
		t.Run("key="+tt.key, func(t *testing.T) {
			get := c.Get("/admin/queues", tt.key) // apitest sends it as HEAD too and compares
			head := c.Do(c.NewRequest(http.MethodHead, "/admin/queues", tt.key, nil))
			if get.Status != tt.status || head.Status != tt.status || len(head.Body) != 0 {
				t.Errorf("GET %d, HEAD %d with %d bytes; want %d", get.Status, head.Status, len(head.Body), tt.status)
			}
		})
	}
}

// TestReadmeBinaries checks the --version example of docs/cli.md's Binaries section has
// the shape the binary prints and names the contract's current version.
func TestReadmeBinaries(t *testing.T) {
	b, err := os.ReadFile(repoRoot(t) + "/docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^bin/inferd --version +# (.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/cli.md shows no `bin/inferd --version` example")
	}
	want := `^inferd version \S+, commit [0-9a-f]{12}, contract ` + regexp.QuoteMeta(contractVersion(t)) + "$"
	if !regexp.MustCompile(want).Match(m[1]) {
		t.Errorf("docs/cli.md shows %q, which does not match %s", m[1], want)
	}
}
