package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStockGeneratorCompiles runs oapi-codegen as an integrator would, with no config
// (`oapi-codegen -generate types,client -package client openapi.yaml`, the version
// pinned in tools/go.mod), into a module of its own, and builds it: a contract whose
// stock client does not compile fails integrators (see
// docs/design.md#stock-client-generators-no-transform).
func TestStockGeneratorCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a client and builds it with go build; runs without -short (make test)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gen := exec.Command("go", "tool", "-modfile=tools/go.mod", "oapi-codegen",
		"-generate", "types,client", "-package", "client", "openapi.yaml")
	gen.Dir = root
	var stderr strings.Builder
	gen.Stderr = &stderr
	src, err := gen.Output()
	if err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, stderr.String())
	}
	write(t, filepath.Join(dir, "client.go"), src)

	// The module needs what the generated code imports, at the versions this module
	// uses, so the build works from the module cache that building inferd fills.
	list := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Version}}",
		"github.com/oapi-codegen/runtime", "go.yaml.in/yaml/v3")
	list.Dir = root
	versions, err := list.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	mod := "module example.com/stock\n\ngo 1.26.0\n\nrequire (\n"
	for line := range strings.Lines(strings.TrimSpace(string(versions))) {
		mod += "\t" + strings.TrimSpace(line) + "\n"
	}
	write(t, filepath.Join(dir, "go.mod"), []byte(mod+")\n"))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), sum)

	build := exec.Command("go", "build", "-mod=mod", "./...")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the stock generated client does not compile: %v\n%s", err, out)
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
