package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteReloads: the soak's readings and issue 41's target, met and not.
func TestWriteReloads(t *testing.T) {
	for _, tc := range []struct {
		after int64
		want  string
	}{
		{150 * 1024, "| RSS after 100 reloads / after the first | at most 1.5x | 1.07x | yes |"},
		{560 * 1024, "| RSS after 100 reloads / after the first | at most 1.5x | 4.00x | no |"},
	} {
		rep := &Report{Reloads: &Reloads{Model: "digits", N: 100, StartKB: 120 * 1024, FirstKB: 140 * 1024, AfterKB: tc.after}}
		if tc.after == 560*1024 {
			rep.Reloads.AfterKB = 4 * rep.Reloads.FirstKB
		}
		var b bytes.Buffer
		rep.WriteReloads(&b, false)
		md := b.String()
		for _, want := range []string{reloadSectionStart + "\n", "| after the first reload | 140.0 MiB |", tc.want, reloadSectionEnd + "\n"} {
			if !strings.Contains(md, want) {
				t.Errorf("the section lacks %q:\n%s", want, md)
			}
		}
	}
	var b bytes.Buffer
	(&Report{}).WriteReloads(&b, false)
	if !strings.Contains(b.String(), "n/a: not measured in this run") {
		t.Errorf("without a soak:\n%s", b.String())
	}
}
