package mirror_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/mirror"
)

// TestRSS measures what downloading one large artifact adds to the process's peak
// resident memory (VmHWM), for the figure issue 37 asks for. It writes the artifact
// twice (the store's and the cache's), so it runs only when MIRROR_RSS_BYTES gives its
// size:
//
//	MIRROR_RSS_BYTES=524288000 go test -run TestRSS -v ./internal/mirror/
func TestRSS(t *testing.T) {
	n, err := strconv.ParseInt(os.Getenv("MIRROR_RSS_BYTES"), 10, 64)
	if err != nil || n <= 0 {
		t.Skip("MIRROR_RSS_BYTES is not set: the measurement writes the artifact twice")
	}
	f := newFixture(t, mirror.Options{})
	// The artifact is written streaming too, so that only the mirror's memory counts.
	name := filepath.Join(f.b.URL(), "big", "v1", "model.onnx")
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	block := []byte(strings.Repeat("inferd weights. ", 64<<10)) // 1 MiB
	for left := n; left > 0; left -= int64(len(block)) {
		b := block[:min(int64(len(block)), left)]
		if _, err := io.MultiWriter(out, h).Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := echoYAML("big")
	f.put(map[string]string{
		"big/v1/model.yaml": cfg,
		"big/v1/SHA256SUMS": fmt.Sprintf("%s  model.onnx\n%s  model.yaml\n", hex.EncodeToString(h.Sum(nil)), digest(cfg)),
	})
	before := peakRSS(t)
	r := f.sync()
	after := peakRSS(t)
	if len(r.Added) != 1 || r.BytesDownloaded < n {
		t.Fatalf("added %v, %d bytes downloaded", r.Added, r.BytesDownloaded)
	}
	t.Logf("downloading %d MiB in %s: peak RSS %d MiB before, %d MiB after (+%d MiB)",
		n>>20, r.Duration.Round(1e6), before>>20, after>>20, (after-before)>>20)
	if after-before > 64<<20 {
		t.Errorf("the download added %d MiB to the peak RSS, over 64", (after-before)>>20)
	}
}

// peakRSS is the process's VmHWM, in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	fh, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer fh.Close()
	s := bufio.NewScanner(fh)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}
