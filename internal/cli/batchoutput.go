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

// write writes what became of one item. An answered item is, in JSON,
// {"line":N,"result":...,"version":"v1"}: the file's line it came from, the result and
// the model version that answered it, keys in alphabetical order like every other
// answer inferctl prints.
func (o *batchOutput) write(oc outcome) error {
	line := o.its.lines[oc.item]
	if o.table != nil {
		return o.row(oc, line)
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
// it and its result.
func (o *batchOutput) row(oc outcome, line int) error {
	if !o.header {
		fmt.Fprintln(o.table, "ITEM\tLINE\tVERSION\tRESULT")
		o.header = true
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
