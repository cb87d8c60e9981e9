package mirror_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/mirror"
	"github.com/inferd/inferd/internal/signature"
	"github.com/inferd/inferd/internal/signature/signtest"
)

// TestSigned checks versions against a cosign key: taken only signed by it over their
// SHA256SUMS, with the signer in their provenance; refused otherwise, with the reason,
// and the copy held before serving on.
func TestSigned(t *testing.T) {
	signer, other := signtest.New(t), signtest.New(t)
	keys := readKeys(t, signer.PublicKey)
	good := map[string]string{"model.yaml": echoYAML("iris"), "model.onnx": "good model"}
	bad := map[string]string{"model.yaml": echoYAML("iris"), "model.onnx": "evil model"}
	sums := sumsOf(good)
	sig := string(signer.SignBytes(t, []byte(sums)))
	key := "iris/v1/"
	tests := []struct {
		name string
		// files replace v1's (and make v2).
		files map[string]string
		kind  error
		file  string
		want  string // in the refusal's message
	}{
		{name: "no signature", kind: signature.ErrUnsigned,
			files: merge(good, map[string]string{"SHA256SUMS": sums}), want: keys[0].Fingerprint},
		{name: "no SHA256SUMS", kind: signature.ErrUnsigned, files: good, want: "no SHA256SUMS"},
		{name: "signed by another key", kind: signature.ErrBadSignature, file: "SHA256SUMS.sig",
			files: merge(good, map[string]string{"SHA256SUMS": sums, "SHA256SUMS.sig": string(other.SignBytes(t, []byte(sums)))}), want: keys[0].Fingerprint},
		{name: "SHA256SUMS changed after signing", kind: signature.ErrBadSignature, file: "SHA256SUMS.sig",
			files: merge(bad, map[string]string{"SHA256SUMS": sumsOf(bad), "SHA256SUMS.sig": sig}), want: "over this content"},
		{name: "a good .sig and a bad bundle", kind: signature.ErrBadSignature, file: "SHA256SUMS.cosign.bundle",
			files: merge(good, map[string]string{"SHA256SUMS": sums, "SHA256SUMS.sig": sig, "SHA256SUMS.cosign.bundle": string(other.BundleBytes(t, []byte(sums), false))})},
		{name: "a .sig that is not base64", kind: signature.ErrMalformed, file: "SHA256SUMS.sig",
			files: merge(good, map[string]string{"SHA256SUMS": sums, "SHA256SUMS.sig": "not a signature"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, mirror.Options{Keys: keys})
			old := merge(version("iris", "v1", true, good), map[string]string{key + "SHA256SUMS.sig": sig})
			bundled := merge(version("other", "v1", true, good), map[string]string{"other/v1/SHA256SUMS.cosign.bundle": string(signer.BundleBytes(t, []byte(sums), true))})
			f.put(merge(old, bundled))
			r := f.sync()
			if len(r.Added) != 2 || len(r.Refused) != 0 {
				t.Fatalf("added %v, refused %v: want iris/v1 (a .sig) and other/v1 (a Sigstore bundle)", r.Added, r.Refused)
			}
			want := mirror.Provenance{Sums: digest(sums), Signer: keys[0].Fingerprint}
			for _, v := range r.Added {
				if got := r.Provenance[v]; got != want {
					t.Errorf("%s: provenance %+v, want %+v", v, got, want)
				}
			}

			for k := range old {
				f.b.Delete(t, k)
			}
			f.put(merge(version("iris", "v1", false, tt.files), version("iris", "v2", false, tt.files)))
			var refused []mirror.Refusal
			for range 2 { // a version whose listing changes is waited for
				for _, rf := range f.sync().Refused {
					if rf.New {
						refused = append(refused, rf)
					}
				}
			}
			if len(refused) != 2 {
				t.Fatalf("refused %v, want iris/v1 and iris/v2", refused)
			}
			for _, rf := range refused {
				if !errors.Is(rf.Err, tt.kind) || rf.Err.File != tt.file || !strings.Contains(rf.Err.Error(), tt.want) {
					t.Errorf("refusal %q (file %q): want %v of %q, saying %q", rf.Err, rf.Err.File, tt.kind, tt.file, tt.want)
				}
			}
			if got := below(f.copied(), "iris/"); !maps.Equal(got, old) {
				t.Errorf("iris's copy is %v, want v1 as it was, and no v2", got)
			}
			if !strings.Contains(f.log.String(), mirror.Reason(refused[0].Err)) {
				t.Errorf("the log does not give the reason %q", mirror.Reason(refused[0].Err))
			}
		})
	}

	t.Run("restarted with another key", func(t *testing.T) {
		f := newFixture(t, mirror.Options{Keys: keys})
		f.put(merge(version("iris", "v1", true, good), map[string]string{key + "SHA256SUMS.sig": sig}))
		f.sync()
		f.opts.Keys = readKeys(t, other.PublicKey)
		f.open(down{name: f.s.String()})
		if got := f.copied(); len(got) != 0 {
			t.Errorf("the copy restored %v, signed by a key no longer configured", got)
		}
		if !strings.Contains(f.log.String(), "bad_signature") {
			t.Errorf("the log does not say why the version was left out:\n%s", f.log)
		}
		f.opts.Keys = nil
		f.open(f.s)
		if r := f.sync(); len(r.Added) != 1 || r.Provenance[r.Added[0]] != (mirror.Provenance{Sums: digest(sums)}) {
			t.Errorf("without keys: added %v, provenance %+v: want iris/v1, its digest, no signer", r.Added, r.Provenance)
		}
	})
}

func readKeys(t *testing.T, name string) signature.Keys {
	t.Helper()
	ks, err := signature.ReadKeys(name)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}
