package daemon

import (
	"fmt"
	"io"
	"strings"

	"github.com/inferd/inferd/internal/config"
)

// helpWidth is where --help wraps its text: a terminal's usual 80 columns.
const helpWidth = 80

// writeHelp prints the usage and every setting from config.Settings, the table
// docs/settings.md is checked against.
func writeHelp(w io.Writer, cmd Command) {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s [--help] [--version] [--healthcheck]\n\n", cmd.Name)
	wrap(&b, "", cmd.About)
	b.WriteString("\nFlags:\n")
	b.WriteString("  -h, --help     print this help and exit\n")
	b.WriteString("  --version      print the version, the commit and the contract version, and exit\n")
	var probe strings.Builder
	wrap(&probe, strings.Repeat(" ", 17), "GET /health of the "+cmd.Name+" these settings start, "+
		"on this machine, and exit 0 when it answers 200, 1 otherwise (for a container's HEALTHCHECK)")
	b.WriteString("  --healthcheck" + probe.String()[len("  --healthcheck"):])
	b.WriteString("\nSettings are environment variables:\n")
	for _, s := range config.Settings() {
		fmt.Fprintf(&b, "  %s (default: %s)\n", s.Name, config.Plain(s.DefaultText()))
		wrap(&b, "      ", config.Plain(s.Meaning))
	}
	b.WriteString("\nExit status: 0 after a clean shutdown (SIGTERM), 1 when it stopped with an error,\n")
	b.WriteString("2 for a bad command line or bad settings.\n")
	_, _ = io.WriteString(w, b.String())
}

// wrap writes text in lines of at most helpWidth columns, each starting with indent.
func wrap(b *strings.Builder, indent, text string) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > helpWidth {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}
