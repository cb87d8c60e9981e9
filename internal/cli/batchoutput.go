package cli

import (
	"bufio"
	"fmt"
	"strconv"
	"text/tabwriter"
)

// batchOutput writes what became of each item of a batch, in the order of the file:
// one JSON document per line, or a table for people with -o table.
type batchOutput struct {
	its    *items
	out    *bufio.Writer
	table  *tabwriter.Writer // nil: JSON
	header bool
	// version and quoted are the last version written and its JSON string: every
	// item of a chunk, and mostly of a whole run, has the same one.
	version string
	quoted  []byte
	buf     []byte
}

func newBatchOutput(e *env, its *items) *batchOutput {
	o := &batchOutput{its: its, out: bufio.NewWriter(e.stdout)}
	if e.output == "table" {
		o.table = tabwriter.NewWriter(o.out, 0, 0, 2, ' ', 0)
	}
	return o
}

// lineFailure is a failed item in JSON (--continue-on-error): the server's problem,
// or code invalid_line for a line that is not an item and was not sent. The problem's
// detail names the item as /predict would, data, not as items[k] of a chunk the
// reader never saw and whose k depends on --chunk.
type lineFailure struct {
	Error lineError `json:"error"`
	Line  int       `json:"line"`
}

type lineError struct {
	Code      string `json:"code"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id,omitempty"`
	Status    int    `json:"status,omitempty"`
}

// codeInvalidLine is lineError's code for a line inferctl could not read as an item.
const codeInvalidLine = "invalid_line"

// write writes what became of one item. An answered item is, in JSON,
// {"line":N,"result":...,"version":"v1"}: the file's line it came from, the result and
// the model version that answered it, keys in alphabetical order like every other
// answer inferctl prints. A failed item is a lineFailure.
func (o *batchOutput) write(oc outcome) error {
	line := o.its.lines[oc.item]
	if o.table != nil {
		return o.row(oc, line)
	}
	if oc.err != nil {
		data, err := marshal(lineFailure{failureOf(oc.err), line})
		if err != nil {
			return err
		}
		if _, err := o.out.Write(data); err != nil {
			return err
		}
		return o.out.WriteByte('\n')
	}
	// Written by hand: the result is the server's compact JSON already, and 10,000
	// items should not pay for encoding it again.
	if oc.version != o.version || o.quoted == nil {
		q, err := marshal(oc.version)
		if err != nil {
			return err
		}
		o.version, o.quoted = oc.version, q
	}
	b := append(o.buf[:0], `{"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, `,"result":`...)
	b = append(b, oc.result...)
	b = append(b, `,"version":`...)
	b = append(b, o.quoted...)
	b = append(b, "}\n"...)
	o.buf = b
	_, err := o.out.Write(b)
	return err
}

// row writes one item as a table row: its number, its line, the version that answered
// it and its result, or the failure.
func (o *batchOutput) row(oc outcome, line int) error {
	if !o.header {
		fmt.Fprintln(o.table, "ITEM\tLINE\tVERSION\tRESULT")
		o.header = true
	}
	if oc.err != nil {
		_, err := fmt.Fprintf(o.table, "%d\t%d\t-\terror: %s\n", oc.item+1, line, failureOf(oc.err).String())
		return err
	}
	v, err := decodeOrdered(oc.result)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.table, "%d\t%d\t%s\t%s\n", oc.item+1, line, oc.version, cell(v))
	return err
}

func (o *batchOutput) flush() error {
	if o.table != nil {
		if err := o.table.Flush(); err != nil {
			return err
		}
	}
	return o.out.Flush()
}

// failureOf is an item's failure in JSON.
func failureOf(err error) lineError {
	p := asProblem(err)
	if p == nil {
		return lineError{Code: codeInvalidLine, Detail: message(err)}
	}
	d := p.Detail
	if d == "" {
		d = p.Title
	}
	if m := itemIndex.FindString(d); m != "" {
		d = "data" + d[len(m):]
	}
	return lineError{Code: p.Code, Detail: d, RequestID: p.RequestID, Status: p.Status}
}

// String is the failure in a table cell: as inferctl words a refusal, without the
// chunk (the row says the item and line).
func (l lineError) String() string {
	if l.Status == 0 {
		return oneLine(l.Detail)
	}
	s := fmt.Sprintf("%d %s: %s", l.Status, l.Code, l.Detail)
	if l.RequestID != "" {
		s += " (request " + l.RequestID + ")"
	}
	return oneLine(s)
}
