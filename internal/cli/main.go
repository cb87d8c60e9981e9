package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
)

// Main runs inferctl with args (without the program name) and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return run(ctx, args, os.Getenv, stdin, stdout, stderr)
}

// defaultURL is where `make run` serves.
const defaultURL = "http://localhost:8080"

// env is one invocation: its streams and its settings from flags and the environment.
type env struct {
	ctx    context.Context
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	url     string
	apiKey  string
	output  string
	timeout time.Duration
}

// command is one subcommand.
type command struct {
	name, usage, summary string
	run                  func(e *env, args []string) error
}

func commands() []command {
	return []command{
		{"predict", "<model> [--version v] [--input JSON | -f file | -]", "run one synchronous prediction", runPredict},
		{"batch", "<model> -f file.jsonl|file.csv|- [--version v] [--chunk N] [--format jsonl|csv] [--continue-on-error] [--progress]", "predict every line of a JSON Lines or CSV file; one answer per line, in order", runBatch},
		{"submit", "<model> [--version v] [--batch] [--input JSON | -f file | -] [--wait [--progress]]", "submit an asynchronous job; --wait shows progress until it ends", runSubmit},
		{"jobs", "get|cancel|wait <id> [--progress]", "show, cancel or wait for a job", runJobs},
		{"models", "list | get <name> [version]", "list the registry, or show one model version's metadata", runModels},
		{"reload", "<name> [version]", "hot-reload a model version (admin)", runReload},
		{"repository", "index [--ready] | load <name> | unload <name>", "the model repository: every version and its state; load or unload a model (admin)", runRepository},
		{"model", "init <dir|file> [--force]", "write a version directory's model.yaml from its ONNX or XGBoost file", runModel},
		{"memory", "", "memory used by each pipeline (admin)", runMemory},
		{"version", "", "inferctl's version and the contract it speaks", runVersion},
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	fs := e.flagSet("inferctl")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			e.usage(stdout)
			return ExitOK
		}
		fmt.Fprintf(stderr, "inferctl: %s\nrun 'inferctl --help' for usage\n", flagProblem(fs, err))
		return ExitUsage
	}
	if err := e.checkGlobals(); err != nil {
		fmt.Fprintf(stderr, "inferctl: %v; run 'inferctl --help' for usage\n", err)
		return ExitUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		e.usage(stderr)
		return ExitUsage
	}
	name := rest[0]
	if name == "help" {
		e.usage(stdout)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		err := c.run(e, rest[1:])
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		if err != nil {
			fmt.Fprintln(stderr, "inferctl: "+message(err))
			var ue usageError
			if errors.As(err, &ue) {
				fmt.Fprintf(stderr, "run 'inferctl %s --help' for usage\n", name)
			}
		}
		return exitCode(err)
	}
	fmt.Fprint(stderr, unknownCommand(name))
	return ExitUsage
}

func (e *env) usage(w io.Writer) {
	var b strings.Builder
	b.WriteString(`inferctl: the command-line client of inferd

Usage: inferctl [global flags] <command> [arguments and flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-11s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Global flags (before or after the command):
  --url URL          server URL (default $INFERD_URL, else ` + defaultURL + `)
  --api-key KEY      API key sent as X-API-Key (default $INFERD_API_KEY, ` + e.keyState() + `)
  -o json|table      output: JSON, one document per line (default), or a table for people
  --timeout D        give up on a request after D (default 1m)

Run 'inferctl <command> --help' for a command's arguments and flags.

`)
	b.WriteString(exitCodesHelp)
	fmt.Fprint(w, b.String())
}
