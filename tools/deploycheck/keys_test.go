package deploycheck

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/inferd/inferd/internal/auth"
)

// hostUser owns the keys file on the host in keysFromSecret: anyone but the image's
// user.
const hostUser = 1000

// keysFromSecret checks how the compose service server gets its keys. file
// (API_KEYS_FILE) must lie in a named volume mounted read-only into server, which a
// service server waits for (service_completed_successfully) fills from the keys'
// secret: docker-compose mounts a secret with the host file's owner and mode, so a
// keys file of mode 0600, as secrets should be, is unreadable to the image's user when
// the server reads it directly.
//
// That service's entrypoint then runs here, as root, as it runs in its container: on
// a copy of the secret owned by another user with mode 0600 (as the host's file is
// mounted) and into a directory standing for the volume. The image's user must not be
// able to read the secret, and must be able to read what the entrypoint wrote, which
// must be keys inferd accepts.
func keysFromSecret(t *testing.T, c composeFile, server, file string, img image) {
	t.Helper()
	s := c.Services[server]
	// The volume holding file, as the server mounts it.
	var volume, rel string
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || filepath.IsAbs(parts[0]) {
			continue
		}
		r, err := filepath.Rel(parts[1], file)
		if err != nil || strings.HasPrefix(r, "..") || r == "." {
			continue
		}
		if len(parts) < 3 || parts[2] != "ro" {
			t.Errorf("the volume %s holding API_KEYS_FILE is mounted writable: mount it :ro", parts[0])
		}
		volume, rel = parts[0], r
	}
	if volume == "" {
		t.Fatalf("API_KEYS_FILE=%s lies in no named volume of %s", file, server)
	}

	// The service that fills it.
	var copier string
	var mountedAt string
	for name, dep := range s.DependsOn {
		for _, v := range c.Services[name].Volumes {
			parts := strings.Split(v, ":")
			if len(parts) >= 2 && parts[0] == volume {
				copier, mountedAt = name, parts[1]
				if dep.Condition != "service_completed_successfully" {
					t.Errorf("%s waits for %s to be %s: want service_completed_successfully, so the keys are there before it starts", server, name, dep.Condition)
				}
			}
		}
	}
	if copier == "" {
		t.Fatalf("no service %s depends on fills the volume %s", server, volume)
	}
	cs := c.Services[copier]
	if len(cs.Secrets) != 1 {
		t.Fatalf("%s: secrets %v, want the keys' secret", copier, cs.Secrets)
	}
	secret := cs.Secrets[0].Source
	keys, err := os.ReadFile(c.Secrets[secret].File)
	if err != nil {
		t.Fatalf("secret %s: %v", secret, err)
	}
	if _, err := auth.Parse(secret, string(keys)); err != nil {
		t.Errorf("secret %s: %v", secret, err)
	}

	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("running the keys service's entrypoint needs root (to own files as other users)")
		}
		t.Skip("running the keys service's entrypoint needs root (to own files as other users)")
	}
	uid, gid := imageIDs(t, img)
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // testing's directory, then the test's
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(hostFile, keys, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(hostFile, hostUser, hostUser); err != nil {
		t.Fatal(err)
	}
	volDir := filepath.Join(dir, "volume")
	if err := os.Mkdir(volDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := readAs(hostFile, uid, gid); err == nil {
		t.Fatalf("the image's user reads a 0600 file of uid %d (%q): this test shows nothing", hostUser, out)
	}

	// The entrypoint, its container paths mapped to these (in a shell's script too).
	var args []string
	for _, a := range cs.Entrypoint {
		if a == mountedAt {
			a = volDir
		}
		a = strings.ReplaceAll(a, "/run/secrets/"+secret, hostFile)
		a = strings.ReplaceAll(a, mountedAt+"/", volDir+"/")
		args = append(args, a)
	}
	if len(args) == 0 {
		t.Fatalf("%s has no entrypoint", copier)
	}
	if cs.User != "0:0" && cs.User != "0" && cs.User != "root" {
		t.Errorf("%s runs as %q: it must be root to read a secret of any owner and mode", copier, cs.User)
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s's entrypoint %v: %v\n%s", copier, args, err, out)
	}
	got, err := readAs(filepath.Join(volDir, rel), uid, gid)
	if err != nil {
		t.Fatalf("the image's user (%d:%d) cannot read API_KEYS_FILE as %s leaves it: %v", uid, gid, copier, err)
	}
	if string(got) != string(keys) {
		t.Errorf("API_KEYS_FILE holds %d bytes, the secret %d", len(got), len(keys))
	}
	fi, err := os.Stat(filepath.Join(volDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("API_KEYS_FILE has mode %04o: only its owner, the image's user, needs to read it", fi.Mode().Perm())
	}

	// Run again with other keys, as `run --rm keys` does after the keys file changed:
	// the servers re-read API_KEYS_FILE while they run, so the new file must replace
	// the old one whole, by a rename as its last step. Copied onto its path (install
	// and cp unlink or truncate it first), a reading could find it missing, empty or
	// half written. No run can show that window reliably, so the command is read.
	if script := strings.Join(cs.Entrypoint, " "); !strings.Contains(script, " && mv ") || !strings.HasSuffix(script, " "+path.Join(mountedAt, rel)) {
		t.Errorf("%s: entrypoint %q: want the keys copied to another name, then renamed onto %s (&& mv ... %s)",
			copier, script, path.Join(mountedAt, rel), path.Join(mountedAt, rel))
	}
	rotated := append([]byte("# rotated\n"), keys...)
	if err := os.WriteFile(hostFile, rotated, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s's entrypoint, again: %v\n%s", copier, err, out)
	}
	if got, err := readAs(filepath.Join(volDir, rel), uid, gid); err != nil || string(got) != string(rotated) {
		t.Errorf("after a second run API_KEYS_FILE holds %q (%v), want the rotated keys", got, err)
	}
	if entries, err := os.ReadDir(volDir); err != nil || len(entries) != 1 {
		t.Errorf("the volume holds %v (%v), want API_KEYS_FILE alone", entries, err)
	}
}

// imageIDs returns the uid and gid of the image's USER.
func imageIDs(t *testing.T, img image) (uint32, uint32) {
	t.Helper()
	u, g, ok := strings.Cut(img.user, ":")
	if !ok {
		g = u
	}
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if err1 != nil || err2 != nil {
		t.Fatalf("deploy/Dockerfile's USER %q: want uid:gid", img.user)
	}
	return uint32(uid), uint32(gid)
}

// readAs reads file as uid:gid (with no supplementary group), through cat.
func readAs(file string, uid, gid uint32) ([]byte, error) {
	cmd := exec.Command("cat", file)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
