package keywatch

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"time"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/config"
)

// Observer is told what the keys in force are and when a reload failed (the metrics).
type Observer interface {
	// KeysLoaded: the keyring of n keys read at at is in force.
	KeysLoaded(at time.Time, n int)
	// KeysReloadFailed: a reading of the file found it unreadable or malformed.
	KeysReloadFailed()
}

// Options configure a Watcher. Zero values are documented defaults.
type Options struct {
	// Path is API_KEYS_FILE; "": the keys came from API_KEYS or are the development
	// keys, and a reload signal is only logged.
	Path string
	// Keys holds the keyring in force, which the Watcher replaces. Required.
	Keys *auth.Keys
	// Interval is KEYS_RELOAD_INTERVAL: the time between readings of the file; 0: the
	// file is read on Reload only.
	Interval time.Duration
	// Reload receives SIGHUP: read the file now.
	Reload <-chan os.Signal
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Observer, when set, is told of loads and failures.
	Observer Observer
}

// Watcher re-reads API_KEYS_FILE. Its state belongs to the goroutine of Run.
type Watcher struct {
	opts Options
	log  *slog.Logger
	// sum is the digest of the file's contents the keys in force came from; a
	// reading that finds the same contents changes nothing.
	sum [sha256.Size]byte
	// failing is the error of the last reading when it failed, so that a file that
	// stays broken is logged once, not on every reading.
	failing string
}

// New returns a Watcher of opts.Path for the keyring in opts.Keys, which was read
// from that file at start.
func New(opts Options) *Watcher {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Watcher{opts: opts, log: opts.Logger}
}

// Run reads the file every Interval and on every Reload until ctx ends. The keys
// already in force count as loaded now.
func (w *Watcher) Run(ctx context.Context) {
	if w.opts.Observer != nil {
		w.opts.Observer.KeysLoaded(time.Now(), w.opts.Keys.Current().Len())
	}
	var tick <-chan time.Time
	if w.opts.Path != "" {
		// The file may have changed since the settings read it; this reading also
		// learns the contents the keys in force came from.
		w.Check("start")
		if w.opts.Interval > 0 {
			t := time.NewTicker(w.opts.Interval)
			defer t.Stop()
			tick = t.C
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			w.Check("interval")
		case <-w.opts.Reload:
			if w.opts.Path == "" {
				w.log.Info("SIGHUP: the API keys come from API_KEYS or are the development keys; there is no API_KEYS_FILE to re-read")
				continue
			}
			w.Check("SIGHUP")
		}
	}
}

// Check reads the file once and puts its keys in force if they differ from those
// in force; why ("interval", "SIGHUP") goes into the log. Not safe to call
// concurrently with Run or itself.
func (w *Watcher) Check(why string) {
	next, b, err := config.ReadKeysFile(w.opts.Path)
	if err != nil {
		if w.opts.Observer != nil {
			w.opts.Observer.KeysReloadFailed()
		}
		if msg := err.Error(); msg != w.failing || why == "SIGHUP" {
			w.failing = msg
			w.log.Error("API_KEYS_FILE cannot be used: the keys in force stay as they were until the file is fixed",
				"reason", why, "error", err, "keys", w.opts.Keys.Current().Len())
		}
		return
	}
	recovered := w.failing != ""
	w.failing = ""
	sum := sha256.Sum256(b)
	if sum == w.sum {
		if why == "SIGHUP" || recovered {
			w.log.Info("API_KEYS_FILE unchanged: the keys in force stay as they are", "reason", why, "keys", next.Len())
		}
		return
	}
	first := w.sum == [sha256.Size]byte{}
	w.sum = sum
	change := w.opts.Keys.Current().Diff(next)
	if first && change.Empty() {
		return // the file the settings read at start: nothing to say
	}
	w.opts.Keys.Replace(next)
	if w.opts.Observer != nil {
		w.opts.Observer.KeysLoaded(time.Now(), next.Len())
	}
	w.log.Info("API keys reloaded", "reason", why, "keys", next.Len(),
		"added", change.Added, "removed", change.Removed, "rescoped", change.Rescoped)
}
