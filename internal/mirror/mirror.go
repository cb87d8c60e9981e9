package mirror

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/signature"
	"github.com/inferd/inferd/internal/store"
)

// Options configure a Mirror. Zero values are documented defaults.
type Options struct {
	// Store is the repository to copy. Required.
	Store store.Store
	// CacheDir holds the cache (sha256/), the copy the repository reads (models/, see
	// Dir) and the state kept across restarts (state.json); it is made when missing.
	// Required. One process uses it at a time: New fails with ErrLocked otherwise.
	CacheDir string
	// MaxBytes bounds the cache: after each poll, files no version of the copy uses
	// are removed, least recently used first, until it holds at most MaxBytes. Files
	// in use are never removed, whatever their size. 0: no bound.
	MaxBytes int64
	// RequireDigests refuses every version without a SHA256SUMS.
	RequireDigests bool
	// Keys, when set, are the keys one of which must have signed a version's
	// SHA256SUMS (SHA256SUMS.sig, or a bundle SHA256SUMS.cosign.bundle, as cosign
	// sign-blob writes them): a version unsigned, or signed otherwise, is refused, and
	// one without SHA256SUMS too, whatever RequireDigests says. The versions the cache
	// kept are verified again when New puts them back. None: signatures are not read.
	Keys signature.Keys
	// Attempts is how many times in a row a request is made to a store that answers
	// ErrUnavailable, or a download cut short is resumed without progress, before the
	// poll gives up on it (until the next poll). 0: 5.
	Attempts int
	// Backoff is the wait before the second attempt, doubled before each next one up
	// to MaxBackoff, with a quarter of jitter. 0: 500ms.
	Backoff time.Duration
	// MaxBackoff caps the wait between attempts. 0: 30s.
	MaxBackoff time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Observer, when set, is told of every poll.
	Observer Observer
}

// Mirror keeps the local copy of one repository. It is safe for concurrent use; polls
// run one at a time.
type Mirror struct {
	opts      Options
	log       *slog.Logger
	local     local
	statePath string
	unlock    func()

	mu sync.Mutex
	st *state
	// seen are the fingerprints of the versions' listings at the last poll, to tell a
	// listing that held still from one still changing.
	seen map[Version]string
	// refused are refusals by the fingerprint of the listing refused, so that the
	// same objects are not read again to be refused again.
	refused map[Version]refusal
	// known are the digests of objects read (or held), so that an object a poll
	// has read costs none after it.
	known map[objectID]string
	// failing is the error of the last poll when it failed, so that a store that stays
	// down is logged once, not on every poll.
	failing string
	// rulesWaiting counts, by model, the polls in a row its routing.yaml waited, so
	// that a wait is logged once, at its second poll: a version without SHA256SUMS
	// waits one poll for its listing to hold still, which on a first sync is every
	// version, and is no news.
	rulesWaiting map[string]int
}

type refusal struct {
	fingerprint string
	err         *RefusedError
}

type objectID struct {
	key, etag string
	size      int64
}

// New opens the cache directory and puts in the copy (Dir) the versions the last
// good poll of opts.Store took, from the cache, without a request to the store: a
// process started while the store is down serves them. Only a cache directory that
// cannot be used fails it; a state that cannot be read, or a version whose files the
// cache has lost, is logged and left out.
func New(opts Options) (*Mirror, error) {
	if opts.Store == nil {
		return nil, errors.New("mirror: Options.Store is required")
	}
	if opts.CacheDir == "" {
		return nil, errors.New("mirror: Options.CacheDir is required")
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 5
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	dir := opts.CacheDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache directory: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, fmt.Errorf("cache directory %s: %w", dir, err)
	}
	m := &Mirror{
		opts:      opts,
		log:       opts.Logger,
		statePath: filepath.Join(dir, "state.json"),
		unlock:    unlock,
		local: local{
			dir:   filepath.Join(dir, "models"),
			tmp:   filepath.Join(dir, "tmp"),
			cache: cache{dir: filepath.Join(dir, "sha256")},
		},
		seen:         map[Version]string{},
		refused:      map[Version]refusal{},
		known:        map[objectID]string{},
		rulesWaiting: map[string]int{},
	}
	// What a process killed mid-download or mid-build left is of no use.
	if err := os.RemoveAll(m.local.tmp); err != nil {
		unlock()
		return nil, fmt.Errorf("cache directory: %w", err)
	}
	for _, d := range []string{m.local.tmp, m.local.dir, m.local.cache.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			unlock()
			return nil, fmt.Errorf("cache directory: %w", err)
		}
	}
	st, err := readState(m.statePath, opts.Store.String())
	if err != nil {
		m.log.Warn("the model cache's state cannot be used: the copy starts empty and fills from the store", "error", err)
	}
	m.st = st
	if err := m.restore(); err != nil {
		unlock()
		return nil, err
	}
	return m, nil
}

// Dir is the copy's directory, laid out as internal/repository reads it: the
// repository's Dir.
func (m *Mirror) Dir() string { return m.local.dir }

// String names the repository copied.
func (m *Mirror) String() string { return m.opts.Store.String() }

// Close releases the cache directory for another process. The copy stays.
func (m *Mirror) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unlock != nil {
		m.unlock()
		m.unlock = nil
	}
	return nil
}

// restore makes the copy what the state says, from the cache: versions whose
// directories are missing or damaged are built again, those whose files the cache
// lost are left out, and what the state does not hold is removed.
func (m *Mirror) restore() error {
	changed := false
	for key, h := range m.st.Versions {
		if key != (Version{h.Model, h.Version}).String() || !h.valid() {
			m.log.Warn("the cache's state holds a model version it cannot have written: left out", "version", key)
			delete(m.st.Versions, key)
			changed = true
			continue
		}
		signerChanged, err := m.verifyHeld(h)
		if err != nil {
			m.log.Warn("a model version of the cache's state does not verify against the signing keys: it is left out until the store has it signed by one of them",
				"model", h.Model, "version", h.Version, "reason", Reason(err), "error", err)
			delete(m.st.Versions, key)
			changed = true
			continue
		}
		changed = changed || signerChanged
		if m.local.intact(h) {
			continue
		}
		if err := m.rebuild(h); err != nil {
			m.log.Warn("a model version of the cache's state cannot be put back: it is left out until the store has it again", "model", h.Model, "version", h.Version, "error", err)
			delete(m.st.Versions, key)
			changed = true
		}
	}
	models := map[string]bool{}
	for _, h := range m.st.Versions {
		models[h.Model] = true
	}
	for model, f := range m.st.Rules {
		if !models[model] || !validDigest(f.SHA256) || !m.local.cache.has(f.SHA256, f.Size) {
			delete(m.st.Rules, model)
			changed = true
			continue
		}
		if err := m.local.setRule(model, f.SHA256); err != nil {
			return fmt.Errorf("cache directory: %w", err)
		}
	}
	if err := m.sweep(); err != nil {
		return fmt.Errorf("cache directory: %w", err)
	}
	for _, h := range m.st.Versions {
		for rel, f := range h.Files {
			m.known[objectID{objectKey(Version{h.Model, h.Version}, rel), f.ETag, f.Size}] = f.SHA256
		}
	}
	if changed {
		if err := m.st.write(m.statePath); err != nil {
			return fmt.Errorf("cache directory: %w", err)
		}
	}
	if n := len(m.st.Versions); n > 0 {
		m.log.Info("model versions restored from the cache", "versions", n, "store", m.opts.Store.String(), "synced", m.st.Synced)
	}
	return nil
}

// rebuild builds h's directory again from the cache.
func (m *Mirror) rebuild(h *held) error {
	for rel, f := range h.Files {
		if !m.local.cache.has(f.SHA256, f.Size) {
			return fmt.Errorf("%s: the cache no longer holds its content (sha256 %s)", rel, f.SHA256)
		}
	}
	return m.local.build(h)
}

// sweep removes from the copy what the state does not hold.
func (m *Mirror) sweep() error {
	models, err := os.ReadDir(m.local.dir)
	if err != nil {
		return err
	}
	for _, e := range models {
		dir := filepath.Join(m.local.dir, e.Name())
		if !e.IsDir() {
			if err := m.local.drop(dir); err != nil {
				return err
			}
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, v := range entries {
			keep := false
			if v.IsDir() {
				_, keep = m.st.Versions[e.Name()+"/"+v.Name()]
			} else if v.Name() == RoutingFile {
				_, keep = m.st.Rules[e.Name()]
			}
			if !keep {
				if err := m.local.drop(filepath.Join(dir, v.Name())); err != nil {
					return err
				}
			}
		}
		if _, err := m.local.pruneModel(e.Name()); err != nil {
			return err
		}
	}
	return nil
}

// objectKey is the store's key of a version's file.
func objectKey(v Version, rel string) string { return v.Model + "/" + v.Version + "/" + rel }

// Sync polls the store once: a listing of the whole repository, then the downloads
// of what changed and is whole, the copy's directories swapped, the state kept and
// the cache trimmed to its bound. Its error is Result.Err.
func (m *Mirror) Sync(ctx context.Context) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unlock == nil {
		return Result{Err: ErrClosed}, ErrClosed
	}
	p := &poll{m: m, res: Result{Start: time.Now(), Errors: map[string]int{}}, buf: make([]byte, 256<<10), waiting: map[string]bool{}}
	p.run(ctx)
	if p.res.Err == nil {
		// The time of the last success is kept with the state at most a minute
		// late: a poll that changed nothing costs no write of it.
		if now := time.Now(); now.Sub(m.st.Synced) > time.Minute {
			p.dirty = true
		}
		m.st.Synced = time.Now()
	}
	if p.dirty {
		if err := m.st.write(m.statePath); err != nil {
			p.fail(fmt.Errorf("keeping the state in the cache directory: %w", err))
		}
	}
	ev, err := m.local.cache.evict(m.opts.MaxBytes, m.st.digests())
	if err != nil {
		p.fail(fmt.Errorf("evicting from the cache: %w", err))
	}
	p.res.CacheBytes, p.res.Evicted, p.res.EvictedBytes = ev.total, ev.files, ev.bytes
	if m.opts.MaxBytes > 0 && ev.total > m.opts.MaxBytes {
		m.log.Warn("the model cache holds more than its bound: the versions in use alone need more", "bytes", ev.total, "max_bytes", m.opts.MaxBytes)
	}
	p.res.Duration = time.Since(p.res.Start)
	p.res.LastSuccess = m.st.Synced
	p.res.Provenance = m.st.provenance()
	m.report(p.res)
	if m.opts.Observer != nil {
		m.opts.Observer.Polled(p.res)
	}
	return p.res, p.res.Err
}

// report logs what a poll did: each change, each new refusal, and a failure once
// until the polls succeed again.
func (m *Mirror) report(r Result) {
	for _, v := range r.Added {
		m.log.Info("model version synced", "model", v.Model, "version", v.Version, "store", m.opts.Store.String())
	}
	for _, v := range r.Changed {
		m.log.Info("model version changed in the store: synced", "model", v.Model, "version", v.Version)
	}
	for _, v := range r.Removed {
		m.log.Info("model version gone from the store: removed", "model", v.Model, "version", v.Version)
	}
	for _, model := range r.Rules {
		m.log.Info("routing.yaml synced", "model", model)
	}
	for _, rf := range r.Refused {
		if rf.New {
			m.log.Error("model version refused: what the copy held of it before, if anything, stays",
				"model", rf.Err.Model, "version", rf.Err.Version, "reason", Reason(rf.Err), "error", rf.Err)
		}
	}
	for _, pd := range r.Pending {
		m.log.Debug("model version not yet whole", "model", pd.Model, "version", pd.Version, "waiting", pd.Reason)
	}
	waiting := map[string]int{}
	for _, model := range r.RulesWaiting {
		waiting[model] = m.rulesWaiting[model] + 1
		if waiting[model] == 2 {
			m.log.Warn("routing.yaml changed in the store but waits: a version of the model is not yet whole or is refused, and the rule may name it; the rule in force stays",
				"model", model)
		}
	}
	m.rulesWaiting = waiting
	switch {
	case r.Err != nil && r.Err.Error() != m.failing:
		m.failing = r.Err.Error()
		m.log.Error("syncing the model repository failed: the copy serves what it holds", "store", m.opts.Store.String(), "error", r.Err, "last_success", r.LastSuccess)
	case r.Err == nil && m.failing != "":
		m.failing = ""
		m.log.Info("syncing the model repository works again", "store", m.opts.Store.String())
	}
	m.log.Debug("model repository polled", "lists", r.Lists, "gets", r.Gets, "bytes", r.BytesDownloaded, "cache_hits", r.CacheHits, "cache_bytes", r.CacheBytes, "duration", r.Duration)
}

// backoff is the wait before attempt n+1.
func (m *Mirror) backoff(n int) time.Duration {
	d := m.opts.Backoff
	for i := 1; i < n && d < m.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, m.opts.MaxBackoff)
	return d - time.Duration(rand.Int64N(int64(d)/4+1))
}

// sortedVersions is the versions of a map in order.
func sortedVersions[T any](m map[Version]T) []Version {
	ids := make([]Version, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b Version) int {
		return cmp.Or(strings.Compare(a.Model, b.Model), strings.Compare(a.Version, b.Version))
	})
	return ids
}
