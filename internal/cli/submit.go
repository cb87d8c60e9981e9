package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/inferd/inferd/client"
)

func runSubmit(e *env, args []string) error {
	fs := e.flagSet("submit")
	version := fs.String("version", "", "model version (default: the model's routing rule picks one)")
	batch := fs.Bool("batch", false, "a batch job: the input is a JSON array of items, or a .jsonl or .csv file of them")
	wait := fs.Bool("wait", false, "wait until the job ends, showing its status, and print its record")
	progress := fs.Bool("progress", false, "with --wait, show the status line even when stderr is not a terminal")
	var src source
	fs.StringVar(&src.inline, "input", "", "the input as JSON (with --batch, an array of items)")
	fs.StringVar(&src.file, "f", "", "a file holding the input; - reads stdin")
	pos, err := e.parse(fs, "submit", args)
	if err != nil {
		return err
	}
	model, err := modelAndStdin(pos, &src, "submit")
	if err != nil {
		return err
	}
	var data json.RawMessage
	var items []json.RawMessage
	switch {
	case *batch && src.inline == "" && itemsFile(src.file):
		its, err := e.readItems(src.file, "", false)
		if err != nil {
			return err
		}
		items = its.values
	case *batch:
		if data, err = e.readValue(src); err != nil {
			return err
		}
		if err := json.Unmarshal(data, &items); err != nil || len(items) == 0 {
			return usagef("with --batch, the input must be a JSON array of at least one item (or a .jsonl or .csv file)")
		}
	default:
		if data, err = e.readValue(src); err != nil {
			return err
		}
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	ctx, cancel := e.call()
	var id string
	if *batch {
		id, err = c.SubmitBatch(ctx, client.BatchRequest{Model: model, Version: *version, Items: anyItems(items)})
	} else {
		id, err = c.Submit(ctx, client.PredictRequest{Model: model, Version: *version, Data: data})
	}
	cancel()
	if err != nil {
		return err
	}
	if !*wait {
		return e.print(struct {
			JobID string `json:"job_id"`
		}{id})
	}
	return e.waitJob(c, id, *progress)
}

// Each poll is a long poll, which the server answers as the job finishes. It lasts
// at most pollWait, half of --timeout (which bounds each request), or pollTick while a
// progress line shows the time going by. A server that answers early without a final
// record (an older one, or one shutting down) is polled again after pollMin, backing
// off to pollMax.
const (
	pollMin  = 20 * time.Millisecond
	pollMax  = time.Second
	pollWait = 20 * time.Second
	pollTick = time.Second
)

// waitJob long-polls the job until it ends, prints its record and reports a failed or
// cancelled job as an error (exit 6 or 7). On a terminal (or with progress), a status
// line shows how long the job has been queued or running. Only Ctrl-C ends the wait
// early: --timeout bounds each poll, not the job.
func (e *env) waitJob(c *client.Client, id string, progress bool) error {
	var p *jobProgress
	if progress || isTerminal(e.stderr) {
		p = &jobProgress{w: e.stderr, id: id, now: time.Now}
		p.start = p.now()
	}
	poll := min(pollWait, e.timeout/2)
	if p != nil {
		poll = min(poll, pollTick)
	}
	rec, err := c.WaitJob(e.ctx, id, client.WaitOptions{Poll: poll, Initial: pollMin, Max: pollMax,
		Progress: func(r *client.JobRecord) { p.show(string(r.Status)) }})
	if rec == nil {
		p.end("error")
		return err
	}
	p.end(string(rec.Status))
	if perr := e.print(rec); perr != nil {
		return perr
	}
	return err
}

// itemsFile reports whether file holds items one per line or row, rather than one JSON
// array of them.
func itemsFile(file string) bool {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".jsonl", ".ndjson", ".csv":
		return true
	}
	return false
}
