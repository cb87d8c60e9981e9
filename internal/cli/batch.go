package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inferd/inferd/client"
)

// defaultChunk is the items per /predict/batch call when --chunk is not given: well
// under the server's default MAX_BATCH_ITEMS; a 413 halves it anyway.
const defaultChunk = 256

// maxRetries bounds the retries of one chunk answered 429 or 503 with Retry-After.
const maxRetries = 5

func runBatch(e *env, args []string) error {
	fs := e.flagSet("batch")
	version := fs.String("version", "", "model version (default: the one routing picks for the first chunk, then kept)")
	file := fs.String("f", "", "JSON Lines (.jsonl) or CSV (.csv) file of inputs; - reads stdin")
	chunk := fs.Int("chunk", defaultChunk, "items per request; halved when the server answers 413")
	format := fs.String("format", "", "jsonl or csv (default: from the file's extension; stdin is jsonl)")
	progress := fs.Bool("progress", false, "show the progress bar even when stderr is not a terminal")
	keepGoing := fs.Bool("continue-on-error", false, "go on past a line that is not an item or that the model refuses; report each, exit 8 if some failed")
	pos, err := e.parse(fs, "batch", args)
	if err != nil {
		return err
	}
	if *file == "" && len(pos) == 2 && pos[1] == "-" {
		*file, pos = "-", pos[:1]
	}
	if len(pos) != 1 {
		return usagef("batch takes one model name, got %d arguments", len(pos))
	}
	if *file == "" {
		return usagef("batch needs -f file.jsonl, -f file.csv or -f - (stdin)")
	}
	if *chunk < 1 {
		return usagef("--chunk %d: want at least 1", *chunk)
	}
	its, err := e.readItems(*file, *format, *keepGoing)
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	b := &batcher{e: e, api: c, model: pos[0], version: *version, size: *chunk, items: its, keepGoing: *keepGoing, eachItem: *keepGoing}
	if *progress || isTerminal(e.stderr) {
		b.bar = newProgressBar(e.stderr, len(its.lines))
	}
	out := newBatchOutput(e, its)
	err = b.run(func(o outcome) error {
		if o.err != nil {
			b.bar.clear()
			fmt.Fprintln(e.stderr, "inferctl: "+message(o.err))
		}
		return out.write(o)
	})
	if ferr := out.flush(); err == nil {
		err = ferr
	}
	b.bar.finish()
	if err == nil && len(b.failed) > 0 {
		err = newBatchFailures(its, b.failed)
	}
	return err
}

// batcher sends items in chunks, in order, and hands on what became of each item, in
// the order of the file, as its chunk is answered.
type batcher struct {
	e         *env
	api       *client.Client
	model     string
	version   string
	size      int
	items     *items
	bar       *progressBar
	keepGoing bool
	// eachItem asks the server to answer each item on its own (on_error continue),
	// which keepGoing does until a server too old to know it refuses the member: then
	// a refused item is set aside here and the rest of its chunk sent again.
	eachItem bool
	// failed holds, by index, the items that will not be answered: unreadable lines,
	// and (with keepGoing) items the server refused.
	failed map[int]error
}

// outcome is what became of one item: its result and the version that answered it, or
// why it failed.
type outcome struct {
	item    int
	result  json.RawMessage
	version string
	err     error
}

// run sends every item. A 413 halves the chunk size and sends the same items again in
// smaller chunks (later chunks stay small); a 429 or 503 with Retry-After waits and
// retries. Without --version, the version routing picks for the first chunk answered
// is kept, so one file is never split across a canary. With keepGoing, the server
// answers each item of a chunk on its own, the ones it refuses in item_errors; a
// server before on_error refuses the chunk naming its first bad item, which is set
// aside and the rest of its chunk sent again. A refusal that names no item (a key, a
// model, a server in trouble) stops the run either way, since every later chunk would
// meet it too.
func (b *batcher) run(emit func(outcome) error) error {
	b.failed = maps.Clone(b.items.unreadable)
	if b.failed == nil {
		b.failed = map[int]error{}
	}
	total := len(b.items.lines)
window:
	for off := 0; off < total; {
		// The window holds up to size items to send, and the unreadable lines among them.
		var idx []int
		end := off
		for ; end < total && len(idx) < b.size; end++ {
			if b.failed[end] == nil {
				idx = append(idx, end)
			}
		}
		results := make([]json.RawMessage, end-off)
		version := ""
		for len(idx) > 0 {
			res, err := b.send(idx)
			if p := asProblem(err); p != nil && p.Status == 413 && len(idx) > 1 {
				b.size = len(idx) / 2
				continue window
			}
			if b.eachItem && unknownOnError(err) {
				b.eachItem = false
				continue
			}
			if err != nil {
				ce := &chunkError{err: err, items: b.items, idx: slices.Clone(idx)}
				k, ok := refusedItem(err, len(idx))
				if !ok || !b.keepGoing {
					return ce
				}
				b.failed[idx[k]] = ce
				idx = slices.Delete(idx, k, k+1)
				continue
			}
			if len(res.Results) != len(idx) {
				return fmt.Errorf("the server answered %d results for %d items (%s)", len(res.Results), len(idx), (&chunkError{items: b.items, idx: idx}).where())
			}
			b.version, version = res.Version, res.Version
			for _, ie := range res.ItemErrors {
				if ie.Index < 0 || ie.Index >= len(idx) {
					return fmt.Errorf("the server answered an error for items[%d] of %d items (%s)", ie.Index, len(idx), (&chunkError{items: b.items, idx: idx}).where())
				}
				b.failed[idx[ie.Index]] = &chunkError{err: client.ItemError(ie), items: b.items, idx: slices.Clone(idx)}
			}
			for i, r := range res.Results {
				results[idx[i]-off] = r
			}
			break
		}
		for i := off; i < end; i++ {
			o := outcome{item: i, err: b.failed[i]}
			if o.err == nil {
				o.result, o.version = results[i-off], version
			}
			if err := emit(o); err != nil {
				return err
			}
		}
		b.bar.add(end - off)
		off = end
	}
	return nil
}

// unknownOnError reports whether err is a server's refusal of on_error itself: one
// before the member was added to the contract, which refuses members it does not know.
func unknownOnError(err error) bool {
	p := asProblem(err)
	return p != nil && p.Status == 400 && p.Code == client.CodeInvalidRequest && strings.Contains(p.Detail, "on_error")
}

// refusedItem returns which of a chunk's n items a refusal is about: the one its
// detail names (items[k]: ...), or the only one, when too large or refused as input.
func refusedItem(err error, n int) (int, bool) {
	p := asProblem(err)
	switch {
	case p == nil:
		return 0, false
	case p.Status == 400:
		if k, ok := namedItem(p, n); ok {
			return k, true
		}
		return 0, n == 1 && p.Code == client.CodeInvalidInput
	case p.Status == 413:
		return 0, n == 1
	}
	return 0, false
}

var itemIndex = regexp.MustCompile(`^items\[(\d+)\]`)

// namedItem returns the k of a problem detail that starts items[k], k < n.
func namedItem(p *client.Error, n int) (int, bool) {
	m := itemIndex.FindStringSubmatch(p.Detail)
	if m == nil {
		return 0, false
	}
	k, err := strconv.Atoi(m[1])
	return k, err == nil && k < n
}

// send makes one call with the items idx, retrying while the server asks to come back
// later.
func (b *batcher) send(idx []int) (*client.BatchPrediction, error) {
	chunk := make([]any, len(idx))
	for i, k := range idx {
		chunk[i] = b.items.values[k]
	}
	for attempt := 0; ; attempt++ {
		ctx, cancel := b.e.call()
		req := client.BatchRequest{Model: b.model, Version: b.version, Items: chunk}
		if b.eachItem {
			req.OnError = client.OnErrorContinue
		}
		res, err := b.api.PredictBatch(ctx, req)
		cancel()
		p := asProblem(err)
		if p == nil || (p.Status != 429 && p.Status != 503) || p.RetryAfter <= 0 || attempt == maxRetries {
			return res, err
		}
		if err := sleep(b.e.ctx, p.RetryAfter); err != nil {
			return nil, err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// chunkError is a failed chunk; it says which items and lines the chunk held, and
// which line the server's `items[k]` is.
type chunkError struct {
	err   error
	items *items
	idx   []int // the chunk's items, in order
}

func (e *chunkError) Error() string { return e.err.Error() + "; " + e.where() }
func (e *chunkError) Unwrap() error { return e.err }

func (e *chunkError) where() string {
	if p := asProblem(e.err); p != nil {
		if k, ok := namedItem(p, len(e.idx)); ok {
			i := e.idx[k]
			return fmt.Sprintf("items[%d] is item %d, line %d of %s", k, i+1, e.items.lines[i], e.items.name)
		}
	}
	first, last := e.idx[0], e.idx[len(e.idx)-1]
	if len(e.idx) == 1 {
		return fmt.Sprintf("item %d, line %d of %s", first+1, e.items.lines[first], e.items.name)
	}
	return fmt.Sprintf("in items %d-%d, lines %d-%d of %s", first+1, last+1, e.items.lines[first], e.items.lines[last], e.items.name)
}
