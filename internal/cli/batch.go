package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"text/tabwriter"
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
	its, err := e.readItems(*file, *format)
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	b := &batcher{e: e, api: c, model: pos[0], version: *version, size: *chunk, items: its}
	if *progress || isTerminal(e.stderr) {
		b.bar = newProgressBar(e.stderr, len(its.values))
	}
	out := bufio.NewWriter(e.stdout)
	var tw *tabwriter.Writer
	if e.output == "table" {
		tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	}
	err = b.run(func(i int, r json.RawMessage) error {
		if tw != nil {
			if i == 0 {
				fmt.Fprintln(tw, "ITEM\tLINE\tRESULT")
			}
			v, err := decodeOrdered(r)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(tw, "%d\t%d\t%s\n", i+1, its.lines[i], cell(v))
			return err
		}
		if _, err := out.Write(r); err != nil {
			return err
		}
		return out.WriteByte('\n')
	})
	if tw != nil {
		if ferr := tw.Flush(); err == nil {
			err = ferr
		}
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	b.bar.finish()
	return err
}

// batcher sends items in chunks, in order, and hands each result on as it arrives.
type batcher struct {
	e       *env
	api     *client.Client
	model   string
	version string
	size    int
	items   *items
	bar     *progressBar
}

// run sends every item. A 413 halves the chunk size and sends the same items again in
// smaller chunks (later chunks stay small); a 429 or 503 with Retry-After waits and
// retries. Without --version, the version routing picks for the first chunk is kept,
// so one file is never split across a canary.
func (b *batcher) run(emit func(int, json.RawMessage) error) error {
	vals := b.items.values
	for off := 0; off < len(vals); {
		n := min(b.size, len(vals)-off)
		res, err := b.send(vals[off : off+n])
		if p := asProblem(err); p != nil && p.Status == 413 && n > 1 {
			b.size = n / 2
			continue
		}
		if err != nil {
			return &chunkError{err: err, items: b.items, off: off, n: n}
		}
		if len(res.Results) != n {
			return fmt.Errorf("the server answered %d results for %d items (items %d-%d of %s)", len(res.Results), n, off+1, off+n, b.items.name)
		}
		b.version = res.Version
		for i, r := range res.Results {
			if err := emit(off+i, r); err != nil {
				return err
			}
		}
		b.bar.add(n)
		off += n
	}
	return nil
}

// send makes one call, retrying while the server asks to come back later.
func (b *batcher) send(chunk []json.RawMessage) (*client.BatchPrediction, error) {
	for attempt := 0; ; attempt++ {
		ctx, cancel := b.e.call()
		res, err := b.api.PredictBatch(ctx, client.BatchRequest{Model: b.model, Version: b.version, Items: anyItems(chunk)})
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
	off   int
	n     int
}

func (e *chunkError) Error() string { return e.err.Error() + "; " + e.where() }
func (e *chunkError) Unwrap() error { return e.err }

var itemIndex = regexp.MustCompile(`^items\[(\d+)\]`)

func (e *chunkError) where() string {
	if p := asProblem(e.err); p != nil {
		if m := itemIndex.FindStringSubmatch(p.Detail); m != nil {
			if k, err := strconv.Atoi(m[1]); err == nil && k < e.n {
				return fmt.Sprintf("items[%d] is item %d, line %d of %s", k, e.off+k+1, e.items.lines[e.off+k], e.items.name)
			}
		}
	}
	if e.n == 1 {
		return fmt.Sprintf("item %d, line %d of %s", e.off+1, e.items.lines[e.off], e.items.name)
	}
	return fmt.Sprintf("in items %d-%d, lines %d-%d of %s", e.off+1, e.off+e.n, e.items.lines[e.off], e.items.lines[e.off+e.n-1], e.items.name)
}
