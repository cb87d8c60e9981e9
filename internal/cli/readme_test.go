package cli_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// readmeHeading is the section of README.md, then of docs/cli.md, whose inferctl
// commands TestReadmeInferctl runs.
const readmeHeading = "## Command line: inferctl"

// readmeCommand is one inferctl command of the README and what it shows it prints.
type readmeCommand struct {
	line   int
	args   []string
	stdout string // the "# " lines after the command, up to an "exit N:" line
	code   int
	stderr string // from the "exit N:" line on
}

// readmeCommands reads the section's sh block: `export K=V` lines set the
// environment of the commands after them, `inferctl ...` lines are commands, and the
// "# " lines right after a command are its output.
func readmeCommands(t *testing.T) (env []string, cmds []readmeCommand) {
	t.Helper()
	section := readmetest.Section(t, readmeHeading) + "\n" + readmetest.FileSection(t, "docs/cli.md", readmeHeading)
	lines := strings.Split(section, "\n")
	for i := 0; i < len(lines); i++ {
		if kv, ok := strings.CutPrefix(lines[i], "export "); ok {
			env = append(env, kv)
			continue
		}
		if !strings.HasPrefix(lines[i], "inferctl ") {
			continue
		}
		c := readmeCommand{line: i, args: words(t, strings.TrimPrefix(lines[i], "inferctl "))}
		var out []string
		for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], "# ") || lines[i+1] == "#") {
			i++
			out = append(out, strings.TrimPrefix(strings.TrimPrefix(lines[i], "#"), " "))
		}
		if len(out) == 0 {
			t.Fatalf("README section line %d: a command without its output", c.line)
		}
		for j, o := range out {
			if code, rest, ok := strings.Cut(o, ": "); ok && strings.HasPrefix(code, "exit ") {
				var err error
				if c.code, err = strconv.Atoi(strings.TrimPrefix(code, "exit ")); err != nil {
					t.Fatalf("README section line %d: %q", c.line, o)
				}
				c.stderr = strings.Join(append([]string{rest}, out[j+1:]...), "\n")
				out = out[:j]
				break
			}
		}
		c.stdout = strings.Join(out, "\n")
		cmds = append(cmds, c)
	}
	if len(cmds) < 10 {
		t.Fatalf("only %d inferctl commands found", len(cmds))
	}
	return env, cmds
}

// words splits a command line as sh would for the shapes the README uses: words and
// 'single-quoted' strings.
func words(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				t.Fatalf("unbalanced quote in %q", s)
			}
			out, s = append(out, s[1:end+1]), s[end+2:]
			continue
		}
		w, rest, _ := strings.Cut(s, " ")
		out, s = append(out, w), rest
	}
	return out
}

// TestReadmeInferctl runs the inferctl commands of README.md and docs/cli.md, in order,
// against a server of the example repository (what `make run` serves) and checks each
// prints what the page shows and exits with the code it shows.
func TestReadmeInferctl(t *testing.T) {
	s := startExampleServer(t)
	env, cmds := readmeCommands(t)
	env = append(env, "INFERD_URL="+s.URL)
	var jobID string // the README's <job_id>: the id the last submission printed
	for _, c := range cmds {
		t.Run(fmt.Sprintf("line %d %s", c.line, strings.Join(c.args, " ")), func(t *testing.T) {
			for i, a := range c.args {
				c.args[i] = strings.ReplaceAll(a, "<job_id>", jobID)
			}
			r := inferctl(t, env, "", c.args...)
			if c.args[0] == "submit" {
				var rec struct {
					JobID string `json:"job_id"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &rec); err == nil && rec.JobID != "" {
					jobID = rec.JobID
				}
			}
			if r.code != c.code {
				t.Errorf("exit code %d, README says %d\nstdout: %s\nstderr: %s", r.code, c.code, r.stdout, r.stderr)
			}
			check(t, "stdout", c.stdout, r.stdout)
			check(t, "stderr", c.stderr, r.stderr)
		})
	}
}
