package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// flagSet returns a flag set holding the global flags, so they work before and after
// the command name.
func (e *env) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Problems and help are printed by run and parse, once, where they belong.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	u := e.getenv("INFERD_URL")
	if u == "" {
		u = defaultURL
	}
	if e.url != "" {
		u = e.url
	}
	if e.apiKey == "" {
		e.apiKey = e.getenv("INFERD_API_KEY")
	}
	out := e.output
	if out == "" {
		out = "json"
	}
	timeout := e.timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	fs.StringVar(&e.url, "url", u, "server URL (env INFERD_URL)")
	// A URL may carry a user and password; --help shows it without the password.
	fs.Lookup("url").DefValue = redactURL(u)
	fs.Var(secret{&e.apiKey}, "api-key", "API `key` sent as X-API-Key (default $INFERD_API_KEY, "+e.keyState()+")")
	fs.StringVar(&e.output, "o", out, "output: json (one JSON document per line) or table")
	fs.DurationVar(&e.timeout, "timeout", timeout, "give up on a request after this long")
	return fs
}

// parse parses a command's flags, which may come before, between or after its
// positional arguments, and checks the global ones.
func (e *env) parse(fs *flag.FlagSet, c string, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				e.commandUsage(fs, c)
				return nil, err
			}
			return nil, usageError{flagProblem(fs, err)}
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	return pos, e.checkGlobals()
}

func (e *env) checkGlobals() error {
	if e.output != "json" && e.output != "table" {
		return usagef("-o %q: want json or table", e.output)
	}
	if e.timeout <= 0 {
		return usagef("--timeout %s: want a positive duration", e.timeout)
	}
	return nil
}

// call bounds one request by --timeout and by Ctrl-C.
func (e *env) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(e.ctx, e.timeout)
}

func (e *env) commandUsage(fs *flag.FlagSet, name string) {
	for _, c := range commands() {
		if c.name == name {
			fmt.Fprintf(e.stdout, "Usage: inferctl %s %s\n\n%s%s.\n\nFlags:\n", name, c.usage, strings.ToUpper(c.summary[:1]), c.summary[1:])
		}
	}
	fs.SetOutput(e.stdout)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// secret is a flag whose value --help never prints: PrintDefaults shows a flag's
// String as its default, and a key in INFERD_API_KEY would otherwise end up in a
// terminal recording or a pasted bug report.
type secret struct{ p *string }

func (s secret) Set(v string) error { *s.p = v; return nil }
func (s secret) String() string     { return "" }

// keyState says whether a key will be sent and where it comes from, never what it is.
func (e *env) keyState() string {
	switch env := e.getenv("INFERD_API_KEY"); {
	case e.apiKey == "":
		return "which is not set: no key is sent"
	case e.apiKey == env:
		return "which is set; the value is not shown"
	}
	return "overridden by --api-key; the value is not shown"
}

// redactURL hides the password of a URL's user information.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}
