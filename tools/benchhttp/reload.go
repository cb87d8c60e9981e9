package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// The reload section of benchmarks.md lies between these markers, so that a run of
// `-section reload` can rewrite it alone.
const (
	reloadSectionStart = "<!-- bench-reload -->"
	reloadSectionEnd   = "<!-- /bench-reload -->"
)

// reloadModel is the model the soak reloads: the example repository's largest ONNX
// file (17 MB of weights), whose sessions show what a reload leaves behind.
const reloadModel = "digits"

// Reloads is the RSS of inferd around a soak of reloads of one model.
type Reloads struct {
	Model            string
	N                int
	StartKB, FirstKB int64 // after start; after the first reload
	AfterKB          int64 // after the N-th
	NA               string
}

// Ratio is RSS after N reloads over RSS after the first.
func (r Reloads) Ratio() float64 {
	if r.FirstKB == 0 {
		return 0
	}
	return float64(r.AfterKB) / float64(r.FirstKB)
}

// reloads reloads reloadModel n times through the admin API, one after the other, and
// reads inferd's RSS after the first and after the last.
func (h *harness) reloads(ctx context.Context, srv *Proc, n int) (Reloads, error) {
	r := Reloads{Model: reloadModel, N: n}
	if !served(srv.URL, reloadModel, "v1") {
		r.NA = "model " + reloadModel + " not served"
		return r, nil
	}
	var err error
	if r.StartKB, err = RSSKB(srv.Pid()); err != nil {
		return r, err
	}
	c := NewConn(ctx)
	defer c.Close()
	url := srv.URL + "/admin/models/" + reloadModel + "/v1/reload"
	for i := range n {
		h.bar.show(fmt.Sprintf("reload soak: %s, reload %d of %d", reloadModel, i+1, n))
		if err := c.Do(http.MethodPost, url, []Header{{"X-API-Key", "admin-key"}}, nil, nil); err != nil {
			return r, fmt.Errorf("reload %d of %s: %w", i+1, reloadModel, err)
		}
		if i == 0 {
			if r.FirstKB, err = RSSKB(srv.Pid()); err != nil {
				return r, err
			}
		}
	}
	r.AfterKB, err = RSSKB(srv.Pid())
	return r, err
}

// WriteReloads writes the reload section, markers included: RSS after start, after
// the first reload and after the last, and issue 41's target.
func (r *Report) WriteReloads(w io.Writer, header bool) {
	fmt.Fprintln(w, reloadSectionStart)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Memory after reloads")
	fmt.Fprintln(w)
	s := r.Reloads
	if s == nil {
		fmt.Fprintln(w, "n/a: not measured in this run")
		fmt.Fprintln(w)
		fmt.Fprintln(w, reloadSectionEnd)
		return
	}
	fmt.Fprintf(w, "RSS of the inferd process (VmRSS) while `POST /admin/models/%s/v1/reload` runs %d times,\n", s.Model, s.N)
	fmt.Fprintln(w, "one after the other: each builds a new ONNX Runtime session beside the old one and")
	fmt.Fprintln(w, "closes the old one once its requests are done.")
	fmt.Fprintln(w)
	if header {
		r.writeSectionRun(w)
	}
	if s.NA != "" {
		fmt.Fprintf(w, "n/a: %s\n\n", s.NA)
		fmt.Fprintln(w, reloadSectionEnd)
		return
	}
	fmt.Fprintln(w, "| moment | RSS |")
	fmt.Fprintln(w, "|---|---:|")
	fmt.Fprintf(w, "| after start | %s |\n", mib(s.StartKB))
	fmt.Fprintf(w, "| after the first reload | %s |\n", mib(s.FirstKB))
	fmt.Fprintf(w, "| after %d reloads | %s |\n", s.N, mib(s.AfterKB))
	fmt.Fprintln(w)
	met := s.Ratio() <= 1.5
	writeTargetTable(w, []target{{what: fmt.Sprintf("RSS after %d reloads / after the first", s.N), want: "at most 1.5x", got: fmt.Sprintf("%.2fx", s.Ratio()), ok: &met}})
	fmt.Fprintln(w, reloadSectionEnd)
}
