package client

import (
	"context"
	"fmt"
	"net/http"

	gen "github.com/inferd/inferd/gen/client"
)

// The Go runtime's profiles under /debug/pprof (scope admin). Each answer is the
// profile's bytes: gzipped protocol buffers for `go tool pprof` (`go tool trace` for
// Trace), or text when debug is 1 or 2.

// ProfileIndex returns the HTML index of the profiles (GET /debug/pprof, operation
// pprofIndex).
func (c *Client) ProfileIndex(ctx context.Context) ([]byte, error) {
	resp, err := c.gen.PprofIndex(ctx)
	return readBytes(resp, err)
}

// CPUProfile samples the CPU for seconds (1 to 120) and returns the profile (GET
// /debug/pprof/profile, operation pprofCPU). Another one being taken is an *Error with
// status 409.
func (c *Client) CPUProfile(ctx context.Context, seconds int) ([]byte, error) {
	resp, err := c.gen.PprofCPU(ctx, &gen.PprofCPUParams{Seconds: &seconds})
	return readBytes(resp, err)
}

// Trace records an execution trace for seconds (1 to 120) (GET /debug/pprof/trace,
// operation pprofTrace).
func (c *Client) Trace(ctx context.Context, seconds int) ([]byte, error) {
	resp, err := c.gen.PprofTrace(ctx, &gen.PprofTraceParams{Seconds: &seconds})
	return readBytes(resp, err)
}

// Profile returns one of the named profiles: allocs, block, goroutine, heap, mutex or
// threadcreate (GET /debug/pprof/{name}, operations pprofAllocs, pprofBlock,
// pprofGoroutine, pprofHeap, pprofMutex, pprofThreadCreate); debug 0 is the binary
// profile.
func (c *Client) Profile(ctx context.Context, name string, debug int) ([]byte, error) {
	var (
		resp *http.Response
		err  error
	)
	switch name {
	case "allocs":
		resp, err = c.gen.PprofAllocs(ctx, &gen.PprofAllocsParams{Debug: &debug})
	case "block":
		resp, err = c.gen.PprofBlock(ctx, &gen.PprofBlockParams{Debug: &debug})
	case "goroutine":
		resp, err = c.gen.PprofGoroutine(ctx, &gen.PprofGoroutineParams{Debug: &debug})
	case "heap":
		resp, err = c.gen.PprofHeap(ctx, &gen.PprofHeapParams{Debug: &debug})
	case "mutex":
		resp, err = c.gen.PprofMutex(ctx, &gen.PprofMutexParams{Debug: &debug})
	case "threadcreate":
		resp, err = c.gen.PprofThreadCreate(ctx, &gen.PprofThreadCreateParams{Debug: &debug})
	default:
		return nil, fmt.Errorf("inferd: no profile named %q (allocs, block, goroutine, heap, mutex, threadcreate)", name)
	}
	return readBytes(resp, err)
}

// Cmdline returns the server's command line, arguments separated by NUL bytes (GET
// /debug/pprof/cmdline, operation pprofCmdline).
func (c *Client) Cmdline(ctx context.Context) ([]byte, error) {
	resp, err := c.gen.PprofCmdline(ctx)
	return readBytes(resp, err)
}

// Symbols returns the symbol lookup's answer, `num_symbols: N` (GET
// /debug/pprof/symbol, operation pprofSymbol).
func (c *Client) Symbols(ctx context.Context) ([]byte, error) {
	resp, err := c.gen.PprofSymbol(ctx)
	return readBytes(resp, err)
}
