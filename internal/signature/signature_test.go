package signature_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/signature"
	"github.com/inferd/inferd/internal/signature/signtest"
)

const sums = "3b5d5c3712955042212316173ccf37be800a8cb3e3c4e4bfc6bd2a76c2b3a5a1  model.onnx\n"

// TestCosign checks what the real cosign writes: its key file, its .sig and both of
// its bundles, verified with the standard library alone.
func TestCosign(t *testing.T) {
	signer, other := signtest.New(t), signtest.New(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "SHA256SUMS")
	write(t, file, sums)
	keys, err := signature.ReadKeys(signer.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].Algorithm != "ecdsa-p256" || keys[0].Fingerprint != fingerprint(t, signer.PublicKey) {
		t.Fatalf("keys of cosign.pub: %v, want one ecdsa-p256 of fingerprint %s", keys, fingerprint(t, signer.PublicKey))
	}
	both := append(keys, readKeys(t, other.PublicKey)...)

	sig := read(t, signer.Sign(t, file))
	otherSig := read(t, other.Sign(t, filepath.Join(dir, copyOf(t, file, "other"))))
	signer.Bundle(t, file, filepath.Join(dir, "cosign.bundle"), false)
	signer.Bundle(t, file, filepath.Join(dir, "sigstore.bundle"), true)

	tests := []struct {
		name    string
		keys    signature.Keys
		content string
		decode  func([]byte) ([]byte, error)
		file    []byte
		want    error
	}{
		{"a .sig by the key", keys, sums, signature.DecodeSig, sig, nil},
		{"a .sig by one of two keys", both[1:], sums, signature.DecodeSig, otherSig, nil},
		{"a .sig by another key", keys, sums, signature.DecodeSig, otherSig, signature.ErrBadSignature},
		{"SHA256SUMS changed after signing", keys, strings.Replace(sums, "3b5d", "4b5d", 1), signature.DecodeSig, sig, signature.ErrBadSignature},
		{"cosign's bundle", keys, sums, bundleOf(sums), read(t, filepath.Join(dir, "cosign.bundle")), nil},
		{"Sigstore's bundle", keys, sums, bundleOf(sums), read(t, filepath.Join(dir, "sigstore.bundle")), nil},
		{"Sigstore's bundle of other content", keys, sums + "\n", bundleOf(sums + "\n"), read(t, filepath.Join(dir, "sigstore.bundle")), signature.ErrBadSignature},
		{"cosign's bundle by another key", both[1:], sums, bundleOf(sums), read(t, filepath.Join(dir, "cosign.bundle")), signature.ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := tt.decode(tt.file)
			var k signature.Key
			if err == nil {
				k, err = tt.keys.Verify([]byte(tt.content), raw)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.want == nil && k.Fingerprint != tt.keys[0].Fingerprint && (len(tt.keys) < 2 || k.Fingerprint != tt.keys[1].Fingerprint) {
				t.Fatalf("signed by %v, want one of %v", k, tt.keys)
			}
			if tt.want != nil && !strings.Contains(err.Error(), tt.keys[0].Fingerprint) && errors.Is(err, signature.ErrBadSignature) && !strings.Contains(err.Error(), "messageDigest") {
				t.Fatalf("err %q does not name the key", err)
			}
		})
	}
	t.Run("the private key is refused as a public one", func(t *testing.T) {
		_, err := signature.ParseKeys(read(t, filepath.Join(filepath.Dir(signer.PublicKey), "cosign.key")))
		if !errors.Is(err, signature.ErrKey) || !strings.Contains(err.Error(), "cosign.pub") {
			t.Fatalf("err = %v, want ErrKey pointing at cosign.pub", err)
		}
	})
}

// TestAlgorithms checks the other keys cosign signs with (imported or KMS keys),
// signed here as cosign signs with each.
func TestAlgorithms(t *testing.T) {
	msg := []byte(sums)
	s256 := sha256.Sum256(msg)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	s384 := sha512.Sum384(msg)
	s512 := sha512.Sum512(msg)
	tests := []struct {
		name string
		pub  crypto.PublicKey
		sig  func() ([]byte, error)
		algo string
	}{
		{"ECDSA P-256", &p256.PublicKey, func() ([]byte, error) { return ecdsa.SignASN1(rand.Reader, p256, s256[:]) }, "ecdsa-p256"},
		{"ECDSA P-384 over SHA-256", &p384.PublicKey, func() ([]byte, error) { return ecdsa.SignASN1(rand.Reader, p384, s256[:]) }, "ecdsa-p384"},
		{"ECDSA P-384 over SHA-384", &p384.PublicKey, func() ([]byte, error) { return ecdsa.SignASN1(rand.Reader, p384, s384[:]) }, "ecdsa-p384"},
		{"Ed25519", ed.Public(), func() ([]byte, error) { return ed25519.Sign(ed, msg), nil }, "ed25519"},
		{"Ed25519ph", ed.Public(), func() ([]byte, error) { return ed.Sign(rand.Reader, s512[:], &ed25519.Options{Hash: crypto.SHA512}) }, "ed25519"},
		{"RSA PKCS #1 v1.5", &rs.PublicKey, func() ([]byte, error) { return rsa.SignPKCS1v15(rand.Reader, rs, crypto.SHA256, s256[:]) }, "rsa-2048"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, err := signature.ParseKeys(pemOf(t, tt.pub))
			if err != nil {
				t.Fatal(err)
			}
			sig, err := tt.sig()
			if err != nil {
				t.Fatal(err)
			}
			decoded, err := signature.DecodeSig([]byte(base64.StdEncoding.EncodeToString(sig) + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			k, err := keys.Verify(msg, decoded)
			if err != nil || k.Algorithm != tt.algo {
				t.Fatalf("Verify = %v, %v; want a key %s", k, err, tt.algo)
			}
			if _, err := keys.Verify(append(msg, ' '), decoded); !errors.Is(err, signature.ErrBadSignature) {
				t.Fatalf("other content: err = %v, want ErrBadSignature", err)
			}
		})
	}
}

// TestMalformed checks the refusals of what is no key or signature cosign writes.
func TestMalformed(t *testing.T) {
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	good := string(pemOf(t, &p256.PublicKey))
	keys := []struct {
		name, file, want string
	}{
		{"empty", "", "no PEM"},
		{"RSA of 1024 bits", string(pemOf(t, &small.PublicKey)), "at least 2048"},
		{"a certificate", strings.ReplaceAll(good, "PUBLIC KEY", "CERTIFICATE"), `"CERTIFICATE"`},
		{"text after the key", good + "trailing\n", "other than PEM"},
		{"not DER", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "block 1"},
	}
	for _, tt := range keys {
		t.Run("key/"+tt.name, func(t *testing.T) {
			_, err := signature.ParseKeys([]byte(tt.file))
			if !errors.Is(err, signature.ErrKey) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrKey with %q", err, tt.want)
			}
		})
	}
	t.Run("key/two, one twice", func(t *testing.T) {
		p2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		ks, err := signature.ParseKeys([]byte(good + "\n" + string(pemOf(t, &p2.PublicKey)) + good))
		if err != nil || len(ks) != 2 {
			t.Fatalf("ParseKeys = %v, %v; want two keys", ks, err)
		}
	})
	sigs := []struct {
		name, file string
		bundle     bool
		want       error
	}{
		{"an empty .sig", "\n", false, signature.ErrMalformed},
		{"a raw .sig", "0E\x02\x21\x00\xff", false, signature.ErrMalformed},
		{"a bundle that is not JSON", "MEUCIQ==", true, signature.ErrMalformed},
		{"a DSSE bundle", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{"payload":""}}`, true, signature.ErrMalformed},
		{"a bundle without a signature", `{"cert":""}`, true, signature.ErrMalformed},
		{"an empty signature", `{"base64Signature":""}`, true, signature.ErrMalformed},
	}
	for _, tt := range sigs {
		t.Run("signature/"+tt.name, func(t *testing.T) {
			var err error
			if tt.bundle {
				_, err = signature.DecodeBundle([]byte(tt.file), []byte(sums))
			} else {
				_, err = signature.DecodeSig([]byte(tt.file))
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func bundleOf(content string) func([]byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) { return signature.DecodeBundle(b, []byte(content)) }
}

// fingerprint is the SHA-256 of the PEM file's DER, computed apart from the package.
func fingerprint(t *testing.T, name string) string {
	blk, _ := pem.Decode(read(t, name))
	if blk == nil {
		t.Fatalf("%s: no PEM", name)
	}
	sum := sha256.Sum256(blk.Bytes)
	return "SHA256:" + strings.TrimRight(base64.StdEncoding.EncodeToString(sum[:]), "=")
}

func pemOf(t *testing.T, pub crypto.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func copyOf(t *testing.T, file, name string) string {
	write(t, filepath.Join(filepath.Dir(file), name), string(read(t, file)))
	return name
}

func write(t *testing.T, name, s string) {
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readKeys(t *testing.T, name string) signature.Keys {
	t.Helper()
	ks, err := signature.ReadKeys(name)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}
