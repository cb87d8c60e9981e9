package cli

import (
	"encoding/json"
	"time"
)

func runSubmit(e *env, args []string) error {
	fs := e.flagSet("submit")
	version := fs.String("version", "", "model version (default: the model's routing rule picks one)")
	batch := fs.Bool("batch", false, "a batch job: the input is a JSON array of items, or a .jsonl/.csv file")
	wait := fs.Bool("wait", false, "wait until the job ends, showing its status, and print its record")
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
	case *batch && src.file != "" && src.file != "-" && src.inline == "":
		its, err := e.readItems(src.file, "")
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
		id, err = c.SubmitBatch(ctx, model, *version, items)
	} else {
		id, err = c.Submit(ctx, model, *version, data)
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
	return e.waitJob(c, id, true)
}

// Polling backs off from pollMin to pollMax: quick jobs are seen at once, long ones do
// not cost the server a request every few milliseconds.
const (
	pollMin = 20 * time.Millisecond
	pollMax = time.Second
)

// waitJob polls the job until it ends, prints its record and reports a failed or
// cancelled job as an error (exit 6 or 7). The status line is shown on a terminal, or
// always when show is true.
func (e *env) waitJob(c api, id string, show bool) error {
	var p *jobProgress
	if show && isTerminal(e.stderr) {
		p = &jobProgress{w: e.stderr, id: id, now: time.Now}
		p.start = p.now()
	}
	delay := pollMin
	for {
		ctx, cancel := e.call()
		j, err := c.Job(ctx, id)
		cancel()
		if err != nil {
			if p != nil {
				p.end("error")
			}
			return err
		}
		if j.finished() {
			p.end(j.Status)
			if err := e.print(j); err != nil {
				return err
			}
			if j.Status == "succeeded" {
				return nil
			}
			msg := ""
			if j.ErrorMessage != nil {
				msg = *j.ErrorMessage
			}
			return jobEndError{id: id, status: j.Status, message: msg}
		}
		p.show(j.Status)
		if err := sleep(e.ctx, delay); err != nil {
			if p != nil {
				p.end("interrupted")
			}
			return err
		}
		delay = min(delay*2, pollMax)
	}
}
