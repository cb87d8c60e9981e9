package signtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/inferd/inferd/internal/storetest"
)

// Cosign is the package of the cosign command tools/cosign/go.mod pins.
const Cosign = "github.com/sigstore/cosign/v2/cmd/cosign"

// Signer is one cosign key pair.
type Signer struct {
	bin string
	dir string
	// PublicKey is the path of cosign.pub, the PEM public key to verify with.
	PublicKey string
}

// New builds cosign (once per test binary; a failure fails the test under CI=true and
// skips it otherwise, and -short skips it, as storetest.Tool does) and makes a key
// pair with an empty password in a directory of the test.
func New(t testing.TB) *Signer {
	t.Helper()
	s := &Signer{bin: storetest.ToolIn(t, "tools/cosign", Cosign), dir: t.TempDir()}
	s.run(t, "generate-key-pair")
	s.PublicKey = filepath.Join(s.dir, "cosign.pub")
	return s
}

// Sign writes file's signature to file+".sig" as
// `cosign sign-blob --key cosign.key --tlog-upload=false --output-signature` does,
// and returns that path.
func (s *Signer) Sign(t testing.TB, file string) string {
	t.Helper()
	sig := file + ".sig"
	s.run(t, "sign-blob", "--yes", "--key", filepath.Join(s.dir, "cosign.key"), "--tlog-upload=false", "--output-signature", sig, file)
	return sig
}

// Bundle writes file's signature in a bundle at out, cosign's own format or, with
// sigstore, the protobuf bundle of --new-bundle-format.
func (s *Signer) Bundle(t testing.TB, file, out string, sigstore bool) {
	t.Helper()
	args := []string{"sign-blob", "--yes", "--key", filepath.Join(s.dir, "cosign.key"), "--tlog-upload=false", "--bundle", out}
	if sigstore {
		args = append(args, "--new-bundle-format")
	}
	s.run(t, append(args, file)...)
}

func (s *Signer) run(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Dir = s.dir
	// COSIGN_PASSWORD empty: the key's password, asked of no terminal. HOME: cosign
	// keeps a TUF cache there, which offline signing never fills.
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=", "HOME="+s.dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cosign %v: %v\n%s", args, err, out)
	}
}

// SignBytes is Sign of a file holding data: the .sig's content.
func (s *Signer) SignBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "SHA256SUMS")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.Sign(t, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BundleBytes is Bundle of a file holding data: the bundle's content.
func (s *Signer) BundleBytes(t testing.TB, data []byte, sigstore bool) []byte {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "SHA256SUMS")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "SHA256SUMS.cosign.bundle")
	s.Bundle(t, file, out, sigstore)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
