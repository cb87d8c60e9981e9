package app_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/signature"
	"github.com/inferd/inferd/internal/signature/signtest"
	"github.com/inferd/inferd/internal/storetest"
	"github.com/inferd/inferd/internal/testkit"
)

// uploadSigned is uploadVersion with the SHA256SUMS.sig `cosign sign-blob` makes of
// its SHA256SUMS with signer's key, uploaded last, as a release script would.
func uploadSigned(t *testing.T, b storetest.Bucket, signer *signtest.Signer, model, version string, files map[string][]byte) {
	t.Helper()
	uploadVersion(t, b, model, version, files, nil)
	b.Put(t, model+"/"+version+"/SHA256SUMS.sig", signer.SignBytes(t, sums(files, nil)))
}

// TestSignedRepository: with MODEL_SIGNING_KEY the server serves a version only when
// cosign's signature by that key over its SHA256SUMS verifies, and its metadata
// (GET /models/{name}/{version}) gives the digest of SHA256SUMS and the signer's
// fingerprint; one signed by another key, one whose SHA256SUMS changed after it was
// signed and one unsigned are refused with their reasons in the repository index, the
// content served before serving on, the others served and the server ready. Over an S3
// server (versitygw), a GCS emulator (fake-gcs-server) and a polled directory, which
// go through the same copy.
func TestSignedRepository(t *testing.T) {
	for _, tt := range []struct {
		name   string
		bucket func(testing.TB) storetest.Bucket
	}{
		{"s3", func(t testing.TB) storetest.Bucket { return storetest.NewVersitygw(t) }},
		{"gcs", func(t testing.TB) storetest.Bucket { return storetest.NewFakeGCS(t) }},
		{"directory", func(t testing.TB) storetest.Bucket { return storetest.NewDir(t) }},
	} {
		t.Run(tt.name, func(t *testing.T) { signedRepository(t, tt.bucket(t)) })
	}
}

func signedRepository(t *testing.T, g storetest.Bucket) {
	signer, other := signtest.New(t), signtest.New(t)
	keys, err := signature.ReadKeys(signer.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	fingerprint := keys[0].Fingerprint
	iris := versionFiles(t, "iris", "v1")
	uploadSigned(t, g, signer, "iris", "v1", iris)
	uploadSigned(t, g, signer, "e", "v1", echoFiles("first"))
	s := startSynced(t, g, t.TempDir(), "MODEL_SIGNING_KEY="+signer.PublicKey)
	s.serves(t, "iris", "v1", irisInput)
	s.serves(t, "e", "v1", `1`)

	t.Run("the metadata gives the digest and the signer", func(t *testing.T) {
		var md struct {
			Provenance *struct {
				Sha256sums string `json:"sha256sums"`
				Signer     string `json:"signer"`
			} `json:"provenance"`
		}
		r := s.c.Get("/models/iris/v1", "dev-key")
		if r.Status != http.StatusOK {
			t.Fatalf("GET /models/iris/v1: %d %s", r.Status, r.Body)
		}
		r.JSON(t, &md)
		d := sha256.Sum256(sums(iris, nil))
		if md.Provenance == nil || md.Provenance.Sha256sums != hex.EncodeToString(d[:]) || md.Provenance.Signer != fingerprint {
			t.Errorf("provenance %s, want sha256sums %x and signer %s", r.Body, d, fingerprint)
		}
	})

	refused := func(t *testing.T, version string, says ...string) {
		t.Helper()
		testkit.Eventually(t, 60*time.Second, func() (bool, string) {
			e := s.index(t)["e "+version]
			ok := e.Reason != ""
			for _, w := range says {
				ok = ok && strings.Contains(e.Reason, w)
			}
			return ok, fmt.Sprintf("%+v", e)
		}, "e %s refused in the index", version)
	}
	t.Run("signed by another key", func(t *testing.T) {
		uploadSigned(t, g, other, "e", "v2", echoFiles("another key"))
		refused(t, "v2", "SHA256SUMS.sig", "signature does not verify", fingerprint)
		if st, body := s.predictStatus("e", "v2", `1`); st != http.StatusServiceUnavailable {
			t.Errorf("e v2: %d %s, want 503", st, body)
		}
	})
	t.Run("SHA256SUMS changed after it was signed", func(t *testing.T) {
		// e v1's files and SHA256SUMS replaced, its signature left: what a tampered
		// upload (or one that forgot to sign again) looks like.
		changed := echoFiles("tampered")
		g.Put(t, "e/v1/model.yaml", changed["model.yaml"])
		g.Put(t, "e/v1/SHA256SUMS", sums(changed, nil))
		refused(t, "v1", "signature does not verify", "over this content")
		r := s.c.Get("/models/e/v1", "dev-key")
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"first"`) {
			t.Errorf("e v1 after the tampered upload: %d %s, want the first content serving on", r.Status, r.Body)
		}
		if st, body := s.predictStatus("e", "v1", `1`); st != http.StatusOK {
			t.Errorf("e v1 after the tampered upload: %d %s", st, body)
		}
	})
	t.Run("unsigned", func(t *testing.T) {
		uploadVersion(t, g, "e", "v3", echoFiles("unsigned"), nil)
		refused(t, "v3", "not signed", "SHA256SUMS.sig")
	})
	t.Run("the others serve and the server is ready", func(t *testing.T) {
		uploadSigned(t, g, signer, "e", "v4", echoFiles("signed later"))
		s.serves(t, "e", "v4", `1`)
		if st, body := s.predictStatus("iris", "v1", irisInput); st != http.StatusOK {
			t.Errorf("iris v1: %d %s", st, body)
		}
		if r := s.c.Get("/ready", ""); r.Status != http.StatusOK {
			t.Errorf("/ready with versions refused: %d %s", r.Status, r.Body)
		}
		if got := s.metric(t, `inferd_repository_sync_errors_total{reason="bad_signature"}`); got < 2 {
			t.Errorf(`sync errors {reason="bad_signature"} = %v, want 2`, got)
		}
		if got := s.metric(t, `inferd_repository_sync_errors_total{reason="unsigned"}`); got < 1 {
			t.Errorf(`sync errors {reason="unsigned"} = %v, want 1`, got)
		}
		if !strings.Contains(s.Logs(), "bad_signature") {
			t.Error("the log does not give the refusal's reason")
		}
	})
}
