package app_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

var (
	grpcurlOnce sync.Once
	grpcurlPath string
	grpcurlErr  error
)

// grpcurl builds grpcurl as tools/go.mod pins it, once per test binary.
func grpcurl(t *testing.T) string {
	t.Helper()
	grpcurlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "grpcurl")
		if err != nil {
			grpcurlErr = err
			return
		}
		grpcurlPath = filepath.Join(dir, "grpcurl")
		cmd := exec.Command("go", "build", "-o", grpcurlPath, "github.com/fullstorydev/grpcurl/cmd/grpcurl")
		cmd.Dir = filepath.Join(readmetest.Root(t), "tools")
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			grpcurlErr = err
			grpcurlPath = string(out)
		}
	})
	if grpcurlErr != nil {
		t.Fatalf("building grpcurl from tools/go.mod: %v\n%s", grpcurlErr, grpcurlPath)
	}
	return grpcurlPath
}

// grpcError is how grpcurl prints a call's status on stderr.
var grpcError = regexp.MustCompile(`(?s)Code: (\w+)\s+Message: ([^\n]*)`)

// runGRPCurl runs a grpcurl command line as written in the docs, against addr.
func runGRPCurl(t *testing.T, bin, addr, line string) (stdout, stderr string, err error) {
	t.Helper()
	line = strings.Replace(line, "grpcurl ", bin+" ", 1)
	line = strings.ReplaceAll(line, "localhost:8001", addr)
	cmd := exec.Command("bash", "-c", line)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// grpcDocSections are the sections whose grpcurl calls TestGRPCDocs runs.
var grpcDocSections = []struct{ file, heading string }{
	{"README.md", "## Triton and KServe clients"},
	{"docs/grpc.md", "## Calls"},
}

// grpcurlExample is a grpcurl command of the docs (continued with \) and the answer
// shown under it.
type grpcurlExample struct{ line, want string }

func grpcurlExamples(t *testing.T, file, heading string) []grpcurlExample {
	t.Helper()
	lines := strings.Split(readmetest.FileSection(t, file, heading), "\n")
	var out []grpcurlExample
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "grpcurl ") {
			continue
		}
		cmd := lines[i]
		for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "# ") {
			t.Fatalf("%s: %q has no answer under it", file, cmd)
		}
		out = append(out, grpcurlExample{cmd, strings.TrimPrefix(lines[i+1], "# ")})
	}
	if len(out) == 0 {
		t.Fatalf("%s %q: no grpcurl examples", file, heading)
	}
	return out
}

// TestGRPCDocs runs the grpcurl calls of the README and docs/grpc.md against a server
// started as `make run` starts it, each checked against the answer shown under it:
// JSON as JSON, an error ("ERROR Code: message") by its status.
func TestGRPCDocs(t *testing.T) {
	bin := grpcurl(t)
	s := startApp(t, map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"}, true)
	for _, sec := range grpcDocSections {
		for _, ex := range grpcurlExamples(t, sec.file, sec.heading) {
			fields := strings.Fields(ex.line)
			t.Run(sec.file+" "+fields[len(fields)-1], func(t *testing.T) { checkGRPCurl(t, bin, s.grpc, ex) })
		}
	}
}

func checkGRPCurl(t *testing.T, bin, addr string, ex grpcurlExample) {
	stdout, stderr, err := runGRPCurl(t, bin, addr, ex.line)
	if code, msg, isErr := strings.Cut(strings.TrimPrefix(ex.want, "ERROR "), ": "); strings.HasPrefix(ex.want, "ERROR ") && isErr {
		m := grpcError.FindStringSubmatch(stderr)
		if err == nil || m == nil || m[1] != code || m[2] != msg {
			t.Errorf("%s\n got: %v %s\nwant: %s", ex.line, err, stderr, ex.want)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", ex.line, err, stderr)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(stdout)); err != nil {
		t.Fatalf("%s: not JSON: %s", ex.line, stdout)
	}
	if err := readmetest.Line(ex.want, compact.String()); err != nil {
		t.Errorf("%s: %v", ex.line, err)
	}
}

// TestGRPCurlDescribes: grpcurl learns the service from the server's reflection, as
// an integrator exploring it would.
func TestGRPCurlDescribes(t *testing.T) {
	bin := grpcurl(t)
	s := startApp(t, map[string]string{"MODELS_DIR": repoModels(t)}, true)
	out, stderr, err := runGRPCurl(t, bin, s.grpc, "grpcurl -plaintext localhost:8001 list")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	for _, want := range []string{"inference.GRPCInferenceService", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("list has no %s:\n%s", want, out)
		}
	}
	out, stderr, err = runGRPCurl(t, bin, s.grpc, "grpcurl -plaintext localhost:8001 describe inference.ModelInferRequest")
	if err != nil || !strings.Contains(out, "repeated bytes raw_input_contents = 7;") {
		t.Errorf("describe: %v %s\n%s", err, stderr, out)
	}
}
