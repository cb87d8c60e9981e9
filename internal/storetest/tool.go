package storetest

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// built is a tool's build, done once per test binary.
type built struct {
	once sync.Once
	bin  string
	err  error
}

var (
	toolsMu sync.Mutex
	tools   = map[string]*built{}
)

// Tool builds the command pkg ("github.com/versity/versitygw/cmd/versitygw") as
// tools/go.mod pins it, once per test binary, and returns the path of its binary. A
// build that fails (no module proxy, a pin missing) goes to Require: the test fails
// under CI=true and skips otherwise. With -short the test is skipped, like the tests
// that build inferd's own binaries: a cold build of a server takes minutes.
func Tool(t testing.TB, pkg string) string {
	t.Helper()
	return ToolIn(t, "tools", pkg)
}

// ToolIn is Tool for a command pinned by another module of the repository than
// tools/go.mod: module is its directory ("tools/cosign"), kept apart so that the
// command's dependencies do not move the other tools' versions.
func ToolIn(t testing.TB, module, pkg string) string {
	t.Helper()
	name := path.Base(pkg)
	if testing.Short() {
		t.Skipf("builds and runs %s; runs without -short (make test)", name)
	}
	toolsMu.Lock()
	b, ok := tools[module+" "+pkg]
	if !ok {
		b = &built{}
		tools[module+" "+pkg] = b
	}
	toolsMu.Unlock()
	b.once.Do(func() { b.bin, b.err = build(filepath.Join(readmetest.Root(t), filepath.FromSlash(module)), pkg, name) })
	Require(t, "building "+name+" from "+module+"/go.mod", b.err)
	return b.bin
}

func build(dir, pkg, name string) (string, error) {
	out, err := os.MkdirTemp("", "inferd-tool-")
	if err != nil {
		return "", err
	}
	// Left for the OS, like the binaries of proctest: other tests of this binary
	// reuse it.
	bin := filepath.Join(out, name)
	cmd := exec.Command(goCommand(), "build", "-o", bin, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, msg)
	}
	return bin, nil
}

// goCommand is the go command running this test: go test puts its GOROOT's first on
// PATH.
func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}
