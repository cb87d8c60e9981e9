package cli

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// source is where a command's input comes from: --input, -f or a "-" argument.
type source struct {
	inline string // --input
	file   string // -f; "-" is stdin
}

// open returns the input's reader and a name for messages.
func (e *env) open(file string) (io.ReadCloser, string, error) {
	if file == "-" {
		return io.NopCloser(e.stdin), "stdin", nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, "", err
	}
	return f, file, nil
}

// readValue returns the one JSON value of predict and submit.
func (e *env) readValue(src source) (json.RawMessage, error) {
	if src.inline != "" && src.file != "" {
		return nil, usagef("give the input once: --input or -f, not both")
	}
	var data []byte
	name := "--input"
	switch {
	case src.inline != "":
		data = []byte(src.inline)
	case src.file != "":
		r, n, err := e.open(src.file)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		if data, err = io.ReadAll(r); err != nil {
			return nil, fmt.Errorf("reading %s: %w", n, err)
		}
		name = n
	default:
		return nil, usagef("no input: give --input JSON, -f file, or - to read stdin")
	}
	return compactJSON(name, data)
}

// compactJSON checks that data is exactly one JSON value and returns it without
// insignificant space; numbers keep their digits.
func compactJSON(name string, data []byte) (json.RawMessage, error) {
	var b bytes.Buffer // Compact scans the whole input: one value, nothing after it
	if err := json.Compact(&b, data); err != nil {
		return nil, usagef("%s is not a JSON value: %v", name, err)
	}
	return b.Bytes(), nil
}

// items are the inputs of a batch, with the file line each came from.
type items struct {
	name   string
	values []json.RawMessage
	lines  []int
	// unreadable holds, by index, the lines that are not an item (not JSON, a ragged
	// CSV row) when the reader was told to keep going past them; their values are nil.
	unreadable map[int]error
}

// add appends one line's item, or why the line is not one.
func (its *items) add(line int, v json.RawMessage, err error) {
	if err != nil {
		if its.unreadable == nil {
			its.unreadable = map[int]error{}
		}
		its.unreadable[len(its.values)] = err
	}
	its.values, its.lines = append(its.values, v), append(its.lines, line)
}

// readItems reads a JSON Lines or CSV file. format is "jsonl", "csv" or "" (from the
// file's extension; stdin is JSON Lines). A line that is not an item stops the reading,
// unless keepGoing, which notes it in unreadable and reads on.
func (e *env) readItems(file, format string, keepGoing bool) (*items, error) {
	if format == "" {
		format = "jsonl"
		if strings.EqualFold(filepath.Ext(file), ".csv") {
			format = "csv"
		}
	}
	r, name, err := e.open(file)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var its *items
	switch format {
	case "jsonl":
		its, err = readJSONLines(r, name, keepGoing)
	case "csv":
		its, err = readCSV(r, name, keepGoing)
	default:
		return nil, usagef("--format %q: want jsonl or csv", format)
	}
	if err != nil {
		return nil, err
	}
	if len(its.lines) == 0 {
		return nil, usagef("%s holds no items", name)
	}
	return its, nil
}

// readJSONLines reads one JSON value per line; blank lines are skipped.
func readJSONLines(r io.Reader, name string, keepGoing bool) (*items, error) {
	its := &items{name: name}
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(text)) > 0 {
			v, verr := compactJSON(fmt.Sprintf("%s:%d", name, line), text)
			if verr != nil && !keepGoing {
				return nil, verr
			}
			its.add(line, v, verr)
		}
		if errors.Is(err, io.EOF) {
			return its, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
}

// jsonNumber is JSON's number grammar: a cell that matches it is sent as a number, with
// its digits as written.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// readCSV reads a header row naming the fields, then one object per row. Numbers are
// sent as numbers, other cells as strings; an empty cell is left out, so a model that
// needs the field says which one is missing.
func readCSV(r io.Reader, name string, keepGoing bool) (*items, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, usagef("%s is empty: want a header row naming the fields", name)
	}
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	seen := map[string]bool{}
	keys := make([][]byte, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff") // a byte-order mark some spreadsheets write
		}
		if h == "" || seen[h] {
			return nil, usagef("%s:1: column %d of the header is empty or repeated", name, i+1)
		}
		seen[h] = true
		keys[i], _ = marshal(h)
	}
	its := &items{name: name}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return its, nil
		}
		// After a ParseError the reader goes on at the next record; any other error
		// is the file's, not a line's.
		var pe *csv.ParseError
		if err != nil && keepGoing && errors.As(err, &pe) {
			its.add(pe.StartLine, nil, usagef("%s: %v", name, err))
			continue
		}
		if err != nil {
			return nil, usagef("%s: %v", name, err)
		}
		line, _ := cr.FieldPos(0)
		var b bytes.Buffer
		b.WriteByte('{')
		for i, cell := range row {
			cell = strings.TrimSpace(cell)
			if cell == "" {
				continue
			}
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.Write(keys[i])
			b.WriteByte(':')
			if jsonNumber.MatchString(cell) {
				b.WriteString(cell)
			} else {
				s, _ := marshal(cell)
				b.Write(s)
			}
		}
		b.WriteByte('}')
		its.add(line, b.Bytes(), nil)
	}
}
