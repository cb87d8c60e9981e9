package signature

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"strconv"
)

// Key is one public key signatures are checked with.
type Key struct {
	// Fingerprint names the key: "SHA256:" and the unpadded base64 of the SHA-256 of
	// its DER (PKIX) encoding, as ssh-keygen spells a fingerprint. The same digest, in
	// padded base64, is the key hint of cosign's protobuf bundle. From a shell:
	// openssl pkey -pubin -in cosign.pub -outform DER | openssl dgst -sha256 -binary | base64 | tr -d =
	Fingerprint string
	// Algorithm is the key's kind: "ecdsa-p256", "ed25519", "rsa-3072" and the like.
	Algorithm string
	pub       crypto.PublicKey
}

func (k Key) String() string { return k.Algorithm + " " + k.Fingerprint }

// Keys are the keys any one of which may sign.
type Keys []Key

// Fingerprints lists the keys' fingerprints, for errors and logs.
func (ks Keys) Fingerprints() []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Fingerprint
	}
	return out
}

// ReadKeys reads the PEM public keys of the file name (ParseKeys).
func ReadKeys(name string) (Keys, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	ks, err := ParseKeys(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ks, nil
}

// ParseKeys reads one or more PEM blocks of type "PUBLIC KEY" (PKIX, as cosign's
// cosign.pub and a KMS key's public half are written): ECDSA on P-256, P-384 or P-521,
// Ed25519, or RSA of at least 2048 bits. Any other block, or text outside the blocks
// other than blank lines, fails the whole file: a key file read in part would trust
// less, or other, than the operator meant.
func ParseKeys(data []byte) (Keys, error) {
	var ks Keys
	seen := map[string]bool{}
	rest := data
	for n := 1; ; n++ {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type != "PUBLIC KEY" {
			hint := ""
			if bytes.Contains([]byte(blk.Type), []byte("PRIVATE")) {
				hint = ": this is a private key; configure its public half (cosign.pub)"
			}
			return nil, fmt.Errorf("%w: PEM block %d is %q, want \"PUBLIC KEY\"%s", ErrKey, n, blk.Type, hint)
		}
		k, err := parseKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: PEM block %d: %v", ErrKey, n, err)
		}
		if !seen[k.Fingerprint] {
			seen[k.Fingerprint] = true
			ks = append(ks, k)
		}
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("%w: the file holds something other than PEM blocks", ErrKey)
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("%w: the file holds no PEM \"PUBLIC KEY\" block", ErrKey)
	}
	return ks, nil
}

func parseKey(der []byte) (Key, error) {
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return Key{}, err
	}
	sum := sha256.Sum256(der)
	k := Key{Fingerprint: "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:]), pub: pub}
	switch p := pub.(type) {
	case *ecdsa.PublicKey:
		switch p.Curve.Params().Name {
		case "P-256", "P-384", "P-521":
			k.Algorithm = "ecdsa-" + map[string]string{"P-256": "p256", "P-384": "p384", "P-521": "p521"}[p.Curve.Params().Name]
		default:
			return Key{}, fmt.Errorf("ECDSA on %s, want P-256, P-384 or P-521", p.Curve.Params().Name)
		}
	case ed25519.PublicKey:
		k.Algorithm = "ed25519"
	case *rsa.PublicKey:
		if p.N.BitLen() < 2048 {
			return Key{}, fmt.Errorf("RSA of %d bits, want at least 2048", p.N.BitLen())
		}
		k.Algorithm = "rsa-" + strconv.Itoa(p.N.BitLen())
	default:
		return Key{}, fmt.Errorf("a %T key", pub)
	}
	return k, nil
}
