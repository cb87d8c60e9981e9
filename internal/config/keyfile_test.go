package config_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/inferd/inferd/internal/config"
)

// imageUser is the user deploy/Dockerfile runs inferd as.
const imageUser = 10001

// TestMain lets TestUnreadableKeysFile run this test binary as another user: with
// INFERD_LOAD_KEYS set, the binary reads the settings as inferd does and prints the
// outcome instead of running tests.
func TestMain(m *testing.M) {
	if os.Getenv("INFERD_LOAD_KEYS") != "" {
		c, err := config.FromEnv()
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(0)
		}
		fmt.Println("keys:", c.Keys.Len())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestUnreadableKeysFile reads a real API_KEYS_FILE as the image's user (10001), as a
// secret mounted with the host file's owner and mode is read in a container: a file
// that user may not read stops inferd with an error naming the file, the process's
// user, the file's mode and owner and the fix (never the keys); a file made readable
// by the ways that error gives is read.
func TestUnreadableKeysFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run as another user and give files away")
	}
	// The binary and the file, where the image's user may reach them.
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // testing's directory, then the test's
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "config.test")
	copyFile(t, self, bin, 0o755)

	const keys = "s3cr3t-file-key:predict+read_models\n"
	for _, tc := range []struct {
		name     string
		mode     os.FileMode
		uid, gid int
		want     []string // in the output
	}{
		{"0600 owned by the host's user", 0o600, 1000, 1000,
			[]string{"error: API_KEYS_FILE: ", "/keys: cannot read it (permission denied)", "uid 10001 gid 10001",
				"mode 0600 owned by uid 1000 gid 1000", "readable by uid 10001", "fsGroup", "deploy/compose.yaml"}},
		{"0600 owned by root", 0o600, 0, 0, []string{"mode 0600 owned by uid 0 gid 0", "fsGroup"}},
		{"0400 owned by the image's user", 0o400, imageUser, imageUser, []string{"keys: 1"}},
		{"0440 in the image's group (fsGroup)", 0o440, 0, imageUser, []string{"keys: 1"}},
		{"0644", 0o644, 0, 0, []string{"keys: 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, "keys")
			if err := os.WriteFile(file, []byte(keys), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(file, tc.uid, tc.gid); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(file, tc.mode); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin)
			cmd.Env = []string{"INFERD_LOAD_KEYS=1", "INFERD_ENV=production", "API_KEYS_FILE=" + file}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: imageUser, Gid: imageUser}}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for _, w := range tc.want {
				if !bytes.Contains(out, []byte(w)) {
					t.Errorf("output does not say %q:\n%s", w, out)
				}
			}
			if strings.Contains(string(out), "s3cr3t") {
				t.Errorf("the output shows the key:\n%s", out)
			}
		})
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
