package mirror

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/inferd/inferd/internal/signature"
)

// The files beside SHA256SUMS that sign it, as cosign sign-blob writes them: the
// signature (--output-signature) and the bundle (--bundle). SHA256SUMS cannot list
// them, being signed by them.
const (
	SigFile    = SumsFile + ".sig"
	BundleFile = SumsFile + ".cosign.bundle"
)

// maxSigBytes caps a signature file, read whole.
const maxSigBytes = 64 << 10

// Provenance is what the copy verified of a version it holds.
type Provenance struct {
	// Sums is the hex SHA-256 of the version's SHA256SUMS; "" when it has none.
	Sums string
	// Signer is the fingerprint of the key (Options.Keys) whose signature over
	// SHA256SUMS verified; "" when no key is configured.
	Signer string
}

// signed checks the signatures of a version's SHA256SUMS, sums, against the keys:
// every signature file the version holds (read by read, which reports false for one
// it does not hold) must verify, and one at least must be there. It returns the
// signer's fingerprint, or a *RefusedError of kind signature.ErrUnsigned,
// ErrBadSignature or ErrMalformed.
func signed(keys signature.Keys, id Version, sums []byte, read func(rel string) ([]byte, bool, error)) (string, error) {
	refuse := func(kind error, file string, err error) *RefusedError {
		detail := ""
		if err != nil {
			detail = strings.TrimPrefix(err.Error(), kind.Error()+": ")
		}
		return &RefusedError{Model: id.Model, Version: id.Version, Kind: kind, File: file, Detail: detail}
	}
	signer := ""
	for _, rel := range []string{SigFile, BundleFile} {
		data, ok, err := read(rel)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		var raw []byte
		if rel == SigFile {
			raw, err = signature.DecodeSig(data)
		} else {
			raw, err = signature.DecodeBundle(data, sums)
		}
		var k signature.Key
		if err == nil {
			k, err = keys.Verify(sums, raw)
		}
		switch {
		case errors.Is(err, signature.ErrMalformed):
			return "", refuse(signature.ErrMalformed, rel, err)
		case err != nil:
			return "", refuse(signature.ErrBadSignature, rel, err)
		}
		if signer == "" {
			signer = k.Fingerprint
		}
	}
	if signer == "" {
		return "", refuse(signature.ErrUnsigned, "", fmt.Errorf("a signature over SHA256SUMS is required: %s or %s beside it, as cosign sign-blob writes them, by %s", SigFile, BundleFile, keyNames(keys)))
	}
	return signer, nil
}

func keyNames(keys signature.Keys) string {
	if len(keys) == 1 {
		return "the key " + keys[0].Fingerprint
	}
	return "one of the keys " + strings.Join(keys.Fingerprints(), ", ")
}

// verifyHeld checks again a version the cache's state holds, from the cache, against
// the keys of this process, which may not be those of the process that took it. It
// reports whether h's signer changed (keys rotated or dropped).
func (m *Mirror) verifyHeld(h *held) (bool, error) {
	if len(m.opts.Keys) == 0 {
		changed := h.Signer != ""
		h.Signer = ""
		return changed, nil
	}
	id := Version{h.Model, h.Version}
	sf, ok := h.Files[SumsFile]
	if !ok {
		return false, &RefusedError{Model: h.Model, Version: h.Version, Kind: signature.ErrUnsigned, Detail: "it has no SHA256SUMS to sign"}
	}
	sums, err := os.ReadFile(m.local.cache.path(sf.SHA256))
	if err != nil {
		return false, err
	}
	signer, err := signed(m.opts.Keys, id, sums, func(rel string) ([]byte, bool, error) {
		f, ok := h.Files[rel]
		if !ok {
			return nil, false, nil
		}
		if f.Size > maxSigBytes {
			return nil, false, fmt.Errorf("%s: %d bytes, over the %d a signature file may have", rel, f.Size, maxSigBytes)
		}
		b, err := os.ReadFile(m.local.cache.path(f.SHA256))
		return b, err == nil, err
	})
	if err != nil {
		return false, err
	}
	changed := h.Signer != signer
	h.Signer = signer
	return changed, nil
}

// provenance is what the copy holds, by version.
func (s *state) provenance() map[Version]Provenance {
	out := make(map[Version]Provenance, len(s.Versions))
	for _, h := range s.Versions {
		out[Version{h.Model, h.Version}] = Provenance{Sums: h.Files[SumsFile].SHA256, Signer: h.Signer}
	}
	return out
}
