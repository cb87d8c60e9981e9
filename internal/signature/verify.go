package signature

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"strings"
)

// Verify reports which of ks made sig over message, or fails with ErrBadSignature
// when none did (or ErrUnsigned when sig is empty). It checks what cosign sign-blob
// writes with each kind of key: ECDSA over the message's SHA-256 (or, for P-384 and
// P-521, the SHA-384 or SHA-512 a KMS key may use), Ed25519 over the message itself
// (and Ed25519ph, which cosign uses when it uploads to a transparency log), RSA
// PKCS #1 v1.5 over its SHA-256.
func (ks Keys) Verify(message, sig []byte) (Key, error) {
	if len(sig) == 0 {
		return Key{}, ErrUnsigned
	}
	for _, k := range ks {
		if k.verifies(message, sig) {
			return k, nil
		}
	}
	return Key{}, fmt.Errorf("%w: not made by %s over this content", ErrBadSignature, describe(ks))
}

func (k Key) verifies(message, sig []byte) bool {
	s256 := sha256.Sum256(message)
	switch p := k.pub.(type) {
	case *ecdsa.PublicKey:
		if ecdsa.VerifyASN1(p, s256[:], sig) {
			return true
		}
		switch p.Curve.Params().BitSize {
		case 384:
			s := sha512.Sum384(message)
			return ecdsa.VerifyASN1(p, s[:], sig)
		case 521:
			s := sha512.Sum512(message)
			return ecdsa.VerifyASN1(p, s[:], sig)
		}
	case ed25519.PublicKey:
		if ed25519.Verify(p, message, sig) {
			return true
		}
		s := sha512.Sum512(message)
		return ed25519.VerifyWithOptions(p, s[:], sig, &ed25519.Options{Hash: crypto.SHA512}) == nil
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(p, crypto.SHA256, s256[:], sig) == nil
	}
	return false
}

// describe names the keys for an error: "the key SHA256:..." or "any of the 2 keys
// (SHA256:..., SHA256:...)".
func describe(ks Keys) string {
	switch len(ks) {
	case 0:
		return "any key (none is configured)"
	case 1:
		return "the key " + ks[0].Fingerprint
	}
	return fmt.Sprintf("any of the %d keys (%s)", len(ks), strings.Join(ks.Fingerprints(), ", "))
}
