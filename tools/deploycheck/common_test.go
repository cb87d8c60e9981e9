package deploycheck

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/config"
)

// root is the repository's root, from this package's directory (go test runs tests
// there).
const root = "../.."

// settingNames are the environment variables inferd and inferd-worker read.
func settingNames() map[string]bool {
	names := map[string]bool{}
	for _, s := range config.Settings() {
		names[s.Name] = true
	}
	return names
}

// settingDefault is the default config.Settings gives name.
func settingDefault(t *testing.T, name string) string {
	t.Helper()
	for _, s := range config.Settings() {
		if s.Name == name {
			return s.Default
		}
	}
	t.Fatalf("config.Settings has no %s", name)
	return ""
}

// image is what deploy/Dockerfile's last stage sets: its ENV, its USER and the ports
// it EXPOSEs.
type image struct {
	env    map[string]string
	user   string
	expose []string
}

// readImage reads the ENV, USER and EXPOSE instructions of deploy/Dockerfile's last stage
// (continuation lines joined, one KEY=VALUE per word, as that file writes them).
func readImage(t *testing.T) image {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "deploy/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	var cur string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		lines = append(lines, cur+line)
		cur = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	img := image{env: map[string]string{}}
	for _, line := range lines {
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		switch strings.ToUpper(words[0]) {
		case "FROM":
			img = image{env: map[string]string{}}
		case "ENV":
			for _, w := range words[1:] {
				k, v, ok := strings.Cut(w, "=")
				if !ok {
					t.Fatalf("deploy/Dockerfile: ENV %q: write KEY=VALUE", w)
				}
				img.env[k] = v
			}
		case "USER":
			img.user = words[1]
		case "EXPOSE":
			img.expose = append(img.expose, words[1:]...)
		}
	}
	return img
}

// requireCommand finds a program the test needs. Missing, it skips the test, but
// fails it under CI=true, where the program must be installed.
func requireCommand(t *testing.T, name, debianPackage string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (Debian package %s; .ci/run installs it)", name, debianPackage)
		}
		t.Skipf("%s is missing (Debian package %s)", name, debianPackage)
	}
	return path
}

// TestImage checks the image's own settings: every ENV is a setting inferd reads, it
// exposes the ports of PORT, GRPC_PORT and WORKER_PORT, and it runs as a numeric
// non-root user (Kubernetes' runAsNonRoot needs a number).
func TestImage(t *testing.T) {
	img := readImage(t)
	names := settingNames()
	for k := range img.env {
		if !names[k] {
			t.Errorf("deploy/Dockerfile sets ENV %s, which is no setting of inferd", k)
		}
	}
	for _, k := range []string{"MODELS_DIR", "ONNXRUNTIME_LIB", "PORT", "GRPC_PORT", "WORKER_PORT"} {
		if img.env[k] == "" {
			t.Errorf("deploy/Dockerfile does not set %s", k)
		}
	}
	// It exposes every port its settings listen on: the server's HTTP and gRPC ports,
	// the worker's.
	for _, k := range []string{"PORT", "GRPC_PORT", "WORKER_PORT"} {
		if !slices.Contains(img.expose, img.env[k]) && !slices.Contains(img.expose, img.env[k]+"/tcp") {
			t.Errorf("deploy/Dockerfile does not EXPOSE %s (%s); it exposes %v", k, img.env[k], img.expose)
		}
	}
	uid, _, _ := strings.Cut(img.user, ":")
	if uid == "" || uid == "0" || strings.Trim(uid, "0123456789") != "" {
		t.Errorf("deploy/Dockerfile's USER is %q: want a numeric user other than 0", img.user)
	}
}
