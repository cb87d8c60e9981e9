package reposync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/inferd/inferd/internal/mirror"
)

// Defaults of Options.
const (
	// DefaultMinGap is Options.MinGap's default: a flood of jobs for a model no store
	// holds costs at most a listing a second.
	DefaultMinGap = time.Second
	// settleWait bounds the wait between the two polls of the first sync (see
	// mirror.Settle): long enough for an upload under way to change the listing, short
	// enough not to hold the start.
	settleWait = 2 * time.Second
)

// ErrClosed: Demand after Close.
var ErrClosed = errors.New("repository sync closed")

// ErrNoCopy: the first sync of a process failed and the cache holds nothing of an
// earlier one, so there is nothing to serve.
var ErrNoCopy = errors.New("the model repository cannot be read and the cache holds no copy of it")

// Registry is what a Syncer changes: internal/registry's Registry.
type Registry interface {
	// Refresh brings a model in line with the source after a poll changed it;
	// changed are its versions whose content changed. It reports false for a model
	// left as it is because an operator unloaded it.
	Refresh(ctx context.Context, name string, changed []string) (bool, error)
}

// Options configure a Syncer. Zero values are documented defaults.
type Options struct {
	// Mirror is the repository's local copy. Required.
	Mirror *mirror.Mirror
	// Source is the registry's source over the copy, told each poll's refusals.
	// Required.
	Source *Source
	// Registry is told what each poll changed. Required.
	Registry Registry
	// Interval is the time from a poll's end to the next one's start (Run); 0: no
	// polls but those Demand asks for.
	Interval time.Duration
	// MinGap is the least time between the starts of two polls Demand asks for;
	// 0: DefaultMinGap.
	MinGap time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Syncer polls a mirrored repository and applies each poll to the registry. Polls run
// one at a time, under the Syncer's own context: a caller that stops waiting for one
// (Demand's ctx) does not cut a download short. It is safe for concurrent use.
type Syncer struct {
	opts   Options
	log    *slog.Logger
	ctx    context.Context // the polls'; ended by Close
	cancel context.CancelFunc
	polls  sync.WaitGroup

	mu     sync.Mutex
	closed bool
	cur    *round    // the poll under way, if any
	last   time.Time // when the last poll that finished began
}

// round is one poll: when it began, and its end.
type round struct {
	start time.Time
	done  chan struct{}
	err   error
}

// New returns a Syncer; it polls only once Settle, Run or Demand asks.
func New(opts Options) (*Syncer, error) {
	if opts.Mirror == nil || opts.Source == nil || opts.Registry == nil {
		return nil, errors.New("reposync: Options.Mirror, Source and Registry are required")
	}
	if opts.MinGap <= 0 {
		opts.MinGap = DefaultMinGap
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Syncer{opts: opts, log: opts.Logger, ctx: ctx, cancel: cancel}, nil
}

// Settle is the process's first sync, before the registry discovers its models: it
// fills the copy and the refusals the registry is to read. With the store down (or
// refusing the credentials) the copy is what the cache held, and the error is logged
// by the mirror; only when the cache held nothing either does Settle fail, with
// ErrNoCopy, since the process would serve an empty repository as if it were the
// real one.
func (s *Syncer) Settle(ctx context.Context) (mirror.Result, error) {
	wait := settleWait
	if s.opts.Interval > 0 {
		wait = min(wait, s.opts.Interval)
	}
	start := time.Now()
	res, err := s.opts.Mirror.Settle(ctx, wait)
	s.opts.Source.set(res.Refused)
	s.opts.Source.setProvenance(res.Provenance)
	if err != nil && ctx.Err() != nil {
		return res, err
	}
	s.mu.Lock()
	s.last = start
	s.mu.Unlock()
	if err != nil && res.LastSuccess.IsZero() && len(res.Added) == 0 {
		return res, fmt.Errorf("%s: %w: %w", s.opts.Mirror, ErrNoCopy, err)
	}
	s.log.Info("model repository synced", "store", s.opts.Mirror.String(), "versions_added", len(res.Added),
		"refused", len(res.Refused), "pending", len(res.Pending), "bytes", res.BytesDownloaded, "cache_hits", res.CacheHits,
		"duration", time.Since(start), "ok", err == nil)
	return res, nil
}

// Run polls every Interval until ctx ends; with no Interval it returns at once.
func (s *Syncer) Run(ctx context.Context) {
	if s.opts.Interval <= 0 {
		return
	}
	t := time.NewTimer(s.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if errors.Is(s.await(ctx, time.Now(), false), ErrClosed) {
			return
		}
		t.Reset(s.opts.Interval)
	}
}

// Demand returns once a poll that began at since or later has been applied to the
// registry, starting one unless one is under way that qualifies: callers that miss
// a version at once share one poll, and polls on demand begin at least MinGap apart.
// Its error is that poll's, or ctx's when it ends first (the poll goes on).
func (s *Syncer) Demand(ctx context.Context, since time.Time) error {
	return s.await(ctx, since, true)
}

func (s *Syncer) await(ctx context.Context, since time.Time, demanded bool) error {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return ErrClosed
		}
		if !s.last.IsZero() && !s.last.Before(since) {
			s.mu.Unlock()
			return nil
		}
		r := s.cur
		if r == nil {
			r = &round{start: time.Now(), done: make(chan struct{})}
			s.cur = r
			s.polls.Add(1)
			go s.poll(r, demanded)
		}
		s.mu.Unlock()
		select {
		case <-r.done:
			if !r.start.Before(since) {
				return r.err
			}
			// It began before since: what the caller missed may have come after.
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// poll runs one round: a Sync, then its changes applied to the registry.
func (s *Syncer) poll(r *round, demanded bool) {
	defer s.polls.Done()
	if demanded {
		s.mu.Lock()
		wait := time.Until(s.last.Add(s.opts.MinGap))
		s.mu.Unlock()
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-s.ctx.Done():
			}
		}
	}
	var err error
	if s.ctx.Err() == nil {
		var res mirror.Result
		res, err = s.opts.Mirror.Sync(s.ctx)
		s.apply(s.ctx, res)
	} else {
		err = ErrClosed
	}
	s.mu.Lock()
	s.cur, s.last = nil, r.start
	s.mu.Unlock()
	r.err = err
	close(r.done)
}

// apply loads, rebuilds and drops what a poll changed, model by model, and shows its
// refusals. A model's failed load is the registry's to log and show; the others go on.
func (s *Syncer) apply(ctx context.Context, res mirror.Result) {
	models := map[string][]string{}
	touch := func(model string) {
		if _, ok := models[model]; !ok {
			models[model] = nil
		}
	}
	for _, v := range slices.Concat(res.Added, res.Removed) {
		touch(v.Model)
	}
	for _, model := range res.Rules {
		touch(model)
	}
	// A poll that failed before it listed the store refused nothing, knowing nothing:
	// the refusals stand until a poll that lists it.
	if res.Err == nil || len(res.Refused) > 0 {
		for _, model := range s.opts.Source.set(res.Refused) {
			touch(model)
		}
	}
	s.opts.Source.setProvenance(res.Provenance)
	for _, v := range res.Changed {
		models[v.Model] = append(models[v.Model], v.Version)
	}
	for _, name := range slices.Sorted(maps.Keys(models)) {
		if ctx.Err() != nil {
			return
		}
		ok, err := s.opts.Registry.Refresh(ctx, name, models[name])
		switch {
		case !ok && err == nil:
			s.log.Info("the repository changed a model an operator unloaded: it stays unloaded until loaded again (POST /v2/repository/models/"+name+"/load)", "model", name)
		case err != nil:
			s.log.Debug("a model did not load every change of the repository: what served before serves on", "model", name, "error", err)
		}
	}
}

// Close stops the polls, cutting short the one under way, and waits for it.
func (s *Syncer) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.polls.Wait()
}
