package signature

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// maxFileBytes caps a signature file, read whole: a signature is at most a few hundred
// bytes, a bundle with a certificate and a log entry a few kilobytes.
const maxFileBytes = 64 << 10

// DecodeSig reads a signature file as `cosign sign-blob --output-signature` writes it:
// the base64 of the signature (an ASN.1 DER ECDSA signature, an Ed25519 or an RSA
// one), a newline after it allowed.
func DecodeSig(data []byte) ([]byte, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%w: %d bytes, over the %d a signature file may have", ErrMalformed, len(data), maxFileBytes)
	}
	s := bytes.TrimSpace(data)
	if len(s) == 0 {
		return nil, fmt.Errorf("%w: the file is empty", ErrMalformed)
	}
	sig, err := base64.StdEncoding.DecodeString(string(s))
	if err != nil {
		return nil, fmt.Errorf("%w: not base64, as cosign sign-blob writes a signature (--b64=false is not read)", ErrMalformed)
	}
	return sig, nil
}

// bundle holds the members of both bundles cosign sign-blob --bundle writes: its own
// (base64Signature, cert, rekorBundle) and, with --new-bundle-format, Sigstore's
// protobuf bundle as JSON (messageSignature, verificationMaterial).
type bundle struct {
	Base64Signature  *string `json:"base64Signature"`
	MediaType        string  `json:"mediaType"`
	MessageSignature *struct {
		MessageDigest *struct {
			Algorithm string `json:"algorithm"`
			Digest    []byte `json:"digest"`
		} `json:"messageDigest"`
		Signature []byte `json:"signature"`
	} `json:"messageSignature"`
	DSSEEnvelope json.RawMessage `json:"dsseEnvelope"`
}

// DecodeBundle reads the signature of a bundle `cosign sign-blob --bundle` wrote over
// message: cosign's own JSON or, with --new-bundle-format, Sigstore's. What else the
// bundle holds (a certificate, a log entry) is not read: verification is offline,
// against the configured keys alone. A Sigstore bundle's digest of the message, when
// present, must be the message's.
func DecodeBundle(data, message []byte) ([]byte, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%w: %d bytes, over the %d a bundle may have", ErrMalformed, len(data), maxFileBytes)
	}
	var b bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%w: not a cosign bundle (JSON): %v", ErrMalformed, err)
	}
	switch {
	case b.Base64Signature != nil:
		sig, err := base64.StdEncoding.DecodeString(*b.Base64Signature)
		if err != nil || len(sig) == 0 {
			return nil, fmt.Errorf("%w: the bundle's base64Signature is not base64", ErrMalformed)
		}
		return sig, nil
	case b.MessageSignature != nil:
		ms := b.MessageSignature
		if len(ms.Signature) == 0 {
			return nil, fmt.Errorf("%w: the bundle's messageSignature has no signature", ErrMalformed)
		}
		if d := ms.MessageDigest; d != nil && len(d.Digest) > 0 {
			if d.Algorithm != "SHA2_256" {
				return nil, fmt.Errorf("%w: the bundle's digest is %s, want SHA2_256", ErrMalformed, d.Algorithm)
			}
			if sum := sha256.Sum256(message); !bytes.Equal(sum[:], d.Digest) {
				return nil, fmt.Errorf("%w: the bundle is of other content than this (its messageDigest differs)", ErrBadSignature)
			}
		}
		return ms.Signature, nil
	case len(b.DSSEEnvelope) > 0:
		return nil, fmt.Errorf("%w: the bundle holds a DSSE envelope (an attestation), not a blob's signature: sign with cosign sign-blob", ErrMalformed)
	}
	return nil, fmt.Errorf("%w: the JSON holds neither base64Signature nor messageSignature", ErrMalformed)
}
