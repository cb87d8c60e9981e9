package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	url := e.getenv("INFERD_URL")
	if url == "" {
		url = defaultURL
	}
	if e.url != "" {
		url = e.url
	}
	key := e.getenv("INFERD_API_KEY")
	if e.apiKey != "" {
		key = e.apiKey
	}
	out := e.output
	if out == "" {
		out = "json"
	}
	timeout := e.timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	fs.StringVar(&e.url, "url", url, "server URL (env INFERD_URL)")
	fs.StringVar(&e.apiKey, "api-key", key, "API key sent as X-API-Key (env INFERD_API_KEY)")
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
			return nil, usageError{err.Error()}
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
