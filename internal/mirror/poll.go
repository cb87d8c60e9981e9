package mirror

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/inferd/inferd/internal/signature"
	"github.com/inferd/inferd/internal/store"
)

// poll is one Sync's work: its result and what it changed.
type poll struct {
	m   *Mirror
	res Result
	buf []byte // the downloads' copy buffer: what a download holds in memory
	// dirty: the state changed and is to be kept.
	dirty bool
	// waiting are models with a version pending or failed in this poll, or refused
	// with nothing of it in the copy, whose routing.yaml waits: a rule uploaded with a
	// new version may name it.
	waiting map[string]bool
}

func (p *poll) run(ctx context.Context) {
	objs, err := p.list(ctx)
	if err != nil {
		p.fail(fmt.Errorf("listing %s: %w", p.m.opts.Store, err))
		return
	}
	lay := group(objs)
	seen := make(map[Version]string, len(lay.versions))
	for _, id := range sortedVersions(lay.versions) {
		if ctx.Err() != nil {
			p.fail(ctx.Err())
			return // the rest, removals included, on the next poll
		}
		lv := lay.versions[id]
		seen[id] = lv.fingerprint()
		p.version(ctx, lv, seen[id])
	}
	for _, key := range slices.Sorted(maps.Keys(p.m.st.Versions)) {
		h := p.m.st.Versions[key]
		if id := (Version{h.Model, h.Version}); lay.versions[id] == nil {
			p.remove(id)
		}
	}
	p.rules(ctx, lay)
	p.m.seen = seen
	for id := range p.m.refused {
		if lay.versions[id] == nil {
			delete(p.m.refused, id)
		}
	}
	listed := make(map[objectID]bool, len(objs))
	for _, o := range objs {
		listed[objectID{o.Key, o.ETag, o.Size}] = true
	}
	maps.DeleteFunc(p.m.known, func(id objectID, _ string) bool { return !listed[id] })
}

// list is one listing of the whole repository, tried again while the store is
// unavailable.
func (p *poll) list(ctx context.Context) ([]store.Object, error) {
	for attempt := 1; ; attempt++ {
		p.res.Lists++
		objs, err := p.m.opts.Store.List(ctx, "")
		if err == nil || !errors.Is(err, store.ErrUnavailable) || attempt >= p.m.opts.Attempts || ctx.Err() != nil {
			return objs, err
		}
		if err := sleep(ctx, p.m.backoff(attempt)); err != nil {
			return nil, err
		}
	}
}

// version decides what to do with one listed version, and does it.
func (p *poll) version(ctx context.Context, lv *listed, fp string) {
	id := lv.id
	h := p.m.st.Versions[id.String()]
	if h != nil && h.same(lv) {
		delete(p.m.refused, id)
		return // what the copy holds: no request
	}
	if r, ok := p.m.refused[id]; ok && r.fingerprint == fp {
		p.res.Refused = append(p.res.Refused, Refusal{Err: r.err})
		p.refusedWaits(id, h)
		return
	}
	delete(p.m.refused, id)
	next, wait, err := p.check(ctx, lv, p.m.seen[id] == fp)
	var re *RefusedError
	switch {
	case errors.As(err, &re):
		p.m.refused[id] = refusal{fingerprint: fp, err: re}
		p.res.Refused = append(p.res.Refused, Refusal{Err: re, New: true})
		p.res.Errors[Reason(re)]++
		p.refusedWaits(id, h)
	case err != nil:
		p.waiting[id.Model] = true
		p.fail(fmt.Errorf("%s: %w", id, err))
	case wait != "":
		p.waiting[id.Model] = true
		p.res.Pending = append(p.res.Pending, Pending{Version: id, Reason: wait})
	default:
		if err := p.m.local.build(next); err != nil {
			p.waiting[id.Model] = true
			p.fail(fmt.Errorf("building %s in the copy: %w", id, err))
			return
		}
		p.m.st.Versions[id.String()] = next
		p.dirty = true
		if h == nil {
			p.res.Added = append(p.res.Added, id)
		} else {
			p.res.Changed = append(p.res.Changed, id)
		}
	}
}

// check reads what it takes to know whether lv is whole and right, and returns it
// to be taken, or why it waits, or its refusal (a *RefusedError). stable: its listing
// is the last poll's.
//
// With a SHA256SUMS, the version is taken as soon as every file it lists is there
// and matches; a file it does not list is refused, not dropped, since the loader
// would read it unverified (or miss it). Without one, nothing tells a whole version
// from a part of one but time: it is taken when its listing has held still for a
// poll. What is missing (a file, model.yaml, SHA256SUMS where digests are required)
// is waited for while the listing changes, and refused once it holds still.
func (p *poll) check(ctx context.Context, lv *listed, stable bool) (*held, string, error) {
	id := lv.id
	refuse := func(kind error, file, detail string) *RefusedError {
		return &RefusedError{Model: id.Model, Version: id.Version, Kind: kind, File: file, Detail: detail}
	}
	// notWhole is a version missing something: waited for, then refused.
	notWhole := func(re *RefusedError, wait string) (*held, string, error) {
		if stable {
			return nil, "", re
		}
		return nil, wait, nil
	}
	h := &held{Model: id.Model, Version: id.Version, Files: map[string]file{}}
	_, hasConfig := lv.files[ConfigFile]
	sumsObj, hasSums := lv.files[SumsFile]
	if !hasSums {
		switch {
		case len(p.m.opts.Keys) > 0:
			return notWhole(refuse(signature.ErrUnsigned, "", "it has no SHA256SUMS, whose signature is required"), "no SHA256SUMS yet, and a signature over it is required")
		case p.m.opts.RequireDigests:
			return notWhole(refuse(ErrNoDigests, "", ""), "no SHA256SUMS yet, and digests are required")
		case !stable:
			return nil, "its listing changed since the last poll: taken once it holds still for a poll", nil
		case !hasConfig:
			return nil, "", refuse(ErrNoConfig, "", "")
		}
		for _, rel := range slices.Sorted(maps.Keys(lv.files)) {
			f, err := p.obtain(ctx, lv.files[rel], "", false)
			if changing(err) {
				return nil, rel + " changed while it was read", nil
			}
			if err != nil {
				return nil, "", err
			}
			h.Files[rel] = f
		}
		return h, "", nil
	}

	if sumsObj.Size > maxSumsBytes {
		return nil, "", refuse(ErrMalformedSums, SumsFile, fmt.Sprintf("it holds %d bytes, over the %d a SHA256SUMS may have", sumsObj.Size, maxSumsBytes))
	}
	sf, err := p.obtain(ctx, sumsObj, "", true)
	if errors.Is(err, store.ErrNotFound) {
		return nil, SumsFile + " was deleted while it was read", nil
	}
	if err != nil {
		return nil, "", err
	}
	h.Files[SumsFile] = sf
	data, err := os.ReadFile(p.m.local.cache.path(sf.SHA256))
	if err != nil {
		return nil, "", err
	}
	sums, err := parseSums(data)
	if err != nil {
		return nil, "", refuse(ErrMalformedSums, SumsFile, err.Error())
	}
	for _, rel := range slices.Sorted(maps.Keys(sums)) {
		if _, ok := lv.files[rel]; !ok {
			return notWhole(refuse(ErrMissingFile, rel, ""), "waiting for "+rel+", which SHA256SUMS lists")
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(lv.files)) {
		if _, ok := sums[rel]; !ok && rel != SumsFile && !sidecar(rel) {
			return notWhole(refuse(ErrUnlistedFile, rel, "list it in SHA256SUMS or remove it"), rel+" is not in SHA256SUMS")
		}
	}
	if !hasConfig {
		return notWhole(refuse(ErrNoConfig, "", ""), "waiting for model.yaml")
	}
	if len(p.m.opts.Keys) > 0 {
		signer, err := p.signed(ctx, lv, h, data)
		var re *RefusedError
		switch {
		case errors.As(err, &re):
			return notWhole(re, "its signature does not verify yet ("+re.Error()+"): an upload under way may bring the one that does")
		case changing(err):
			return nil, "a signature file changed while it was read", nil
		case err != nil:
			return nil, "", err
		}
		h.Signer = signer
	}
	for _, rel := range slices.Sorted(maps.Keys(lv.files)) {
		if _, done := h.Files[rel]; done {
			continue
		}
		f, err := p.obtain(ctx, lv.files[rel], sums[rel], true)
		switch {
		case errors.Is(err, ErrDigestMismatch):
			re := refuse(ErrDigestMismatch, rel, "")
			re.Expected, re.Found = sums[rel], f.SHA256
			return nil, "", re
		case errors.Is(err, store.ErrNotFound):
			return nil, rel + " was deleted while it was read", nil
		case err != nil:
			return nil, "", err
		}
		h.Files[rel] = f
	}
	return h, "", nil
}

// signed reads the version's signature files into the cache (and h) and checks them
// over sums, the content of its SHA256SUMS: the signer, or a *RefusedError.
func (p *poll) signed(ctx context.Context, lv *listed, h *held, sums []byte) (string, error) {
	return signed(p.m.opts.Keys, lv.id, sums, func(rel string) ([]byte, bool, error) {
		obj, ok := lv.files[rel]
		if !ok {
			return nil, false, nil
		}
		if obj.Size > maxSigBytes {
			return nil, false, &RefusedError{Model: lv.id.Model, Version: lv.id.Version, Kind: signature.ErrMalformed, File: rel,
				Detail: fmt.Sprintf("it holds %d bytes, over the %d a signature file may have", obj.Size, maxSigBytes)}
		}
		f, err := p.obtain(ctx, obj, "", true)
		if err != nil {
			return nil, false, err
		}
		h.Files[rel] = f
		b, err := os.ReadFile(p.m.local.cache.path(f.SHA256))
		return b, err == nil, err
	})
}

// sidecar reports whether rel is a file about SHA256SUMS (its signature:
// SHA256SUMS.sig, SHA256SUMS.bundle), which the digests cannot list; it is copied with
// the version, for what checks signatures.
func sidecar(rel string) bool {
	return strings.HasPrefix(rel, SumsFile+".") && !strings.Contains(rel, "/")
}

// changing reports whether err is an object overwritten or deleted since it was listed.
func changing(err error) bool {
	return errors.Is(err, store.ErrChanged) || errors.Is(err, store.ErrNotFound)
}

// obtain is obj's file in the cache: known from an earlier read of the same object,
// found by the digest wanted, or downloaded. want, when not "", is the digest the
// content must have; a file of another fails with ErrDigestMismatch (and the file
// returned has the digest found).
func (p *poll) obtain(ctx context.Context, obj store.Object, want string, restart bool) (file, error) {
	c := p.m.local.cache
	id := objectID{obj.Key, obj.ETag, obj.Size}
	if d, ok := p.m.known[id]; ok {
		if want != "" && d != want {
			return file{ETag: obj.ETag, Size: obj.Size, SHA256: d}, ErrDigestMismatch
		}
		if c.has(d, obj.Size) {
			p.res.CacheHits++
			return file{ETag: obj.ETag, Size: obj.Size, SHA256: d}, nil
		}
	}
	if want != "" && c.has(want, obj.Size) {
		p.res.CacheHits++
		p.m.known[id] = want
		return file{ETag: obj.ETag, Size: obj.Size, SHA256: want}, nil
	}
	f, err := p.download(ctx, obj, want, restart)
	if err == nil || errors.Is(err, ErrDigestMismatch) {
		p.m.known[objectID{obj.Key, f.ETag, f.Size}] = f.SHA256
	}
	return f, err
}

// remove takes a version gone from the store out of the copy.
func (p *poll) remove(id Version) {
	modelGone, err := p.m.local.remove(id)
	if err != nil {
		p.fail(fmt.Errorf("removing %s from the copy: %w", id, err))
		return
	}
	delete(p.m.st.Versions, id.String())
	if modelGone {
		delete(p.m.st.Rules, id.Model)
	}
	p.dirty = true
	p.res.Removed = append(p.res.Removed, id)
}

// refusedWaits holds back the routing.yaml of a refused version's model when the copy
// holds nothing of the version (h nil): a rule naming it would route to a version that
// is not there. One the copy holds serves what it took before, and may be named.
func (p *poll) refusedWaits(id Version, h *held) {
	if h == nil {
		p.waiting[id.Model] = true
	}
}

// rules puts the models' routing.yaml in the copy, beside their versions. A model's
// rule waits while one of its versions does: a rule naming a version not in the copy
// would fail the model's every version when the repository reads it.
func (p *poll) rules(ctx context.Context, lay layout) {
	held := map[string]bool{}
	for _, h := range p.m.st.Versions {
		held[h.Model] = true
	}
	models := slices.Sorted(maps.Keys(lay.rules))
	for model := range p.m.st.Rules {
		if _, ok := lay.rules[model]; !ok {
			models = append(models, model)
		}
	}
	for _, model := range models {
		o, listed := lay.rules[model]
		cur, holds := p.m.st.Rules[model]
		if p.waiting[model] {
			if listed != holds || listed && (cur.ETag != o.ETag || cur.Size != o.Size) {
				p.res.RulesWaiting = append(p.res.RulesWaiting, model)
			}
			continue
		}
		switch {
		case listed && held[model]:
			if holds && cur.ETag == o.ETag && cur.Size == o.Size {
				continue
			}
			f, err := p.obtain(ctx, o, "", true)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted since the listing: the next poll sees it gone
			}
			if err != nil {
				p.fail(fmt.Errorf("%s/%s: %w", model, RoutingFile, err))
				continue
			}
			p.m.st.Rules[model] = f
			p.dirty = true
			if holds && cur.SHA256 == f.SHA256 {
				continue // written again, the same
			}
			if err := p.m.local.setRule(model, f.SHA256); err != nil {
				p.fail(fmt.Errorf("%s/%s in the copy: %w", model, RoutingFile, err))
				delete(p.m.st.Rules, model)
				continue
			}
			p.res.Rules = append(p.res.Rules, model)
		case holds:
			if err := p.m.local.drop(p.m.local.rulePath(model)); err != nil {
				p.fail(fmt.Errorf("%s/%s in the copy: %w", model, RoutingFile, err))
				continue
			}
			delete(p.m.st.Rules, model)
			p.dirty = true
			if held[model] { // else the model went with its last version
				p.res.Rules = append(p.res.Rules, model)
			}
		}
	}
}

// fail records a failure of the poll.
func (p *poll) fail(err error) {
	p.res.Errors[Reason(err)]++
	p.res.Err = errors.Join(p.res.Err, err)
}
