package onnx

import (
	"fmt"
	"os"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Options configure a Runtime. The zero value finds the library by FindLibrary and
// gives each Run one thread.
type Options struct {
	// Library is the ONNX Runtime shared library (the ONNXRUNTIME_LIB setting); ""
	// means LocalLibrary in the working directory or a parent of it.
	Library string
	// IntraOpThreads is how many threads one Run may use; 0 means 1. One is right for
	// small models served to many concurrent requests: every session has its own pool,
	// so more would oversubscribe the cores as soon as a few models are loaded.
	IntraOpThreads int
}

// Runtime is ONNX Runtime in this process. The library is loaded on first use, so a
// server whose repository holds no ONNX model never needs it.
type Runtime struct {
	opts Options

	once sync.Once
	err  error
}

// New returns a Runtime that will load the library when the first model opens.
func New(opts Options) *Runtime {
	if opts.IntraOpThreads <= 0 {
		opts.IntraOpThreads = 1
	}
	return &Runtime{opts: opts}
}

// env is the process's one ONNX Runtime environment. onnxruntime_go keeps it in
// package state and the library can be loaded only once per process, so every
// Runtime shares it and this is the one guard.
var env struct {
	sync.Mutex
	lib string // the library the environment was created from
}

// Init loads the library and creates the environment, once; later calls return the
// first call's result. Opening a model calls it.
func (r *Runtime) Init() error {
	r.once.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			dir = "."
		}
		var lib string
		if lib, r.err = FindLibrary(r.opts.Library, dir); r.err != nil {
			return
		}
		if r.err = initEnv(lib); r.err == nil {
			r.err = r.warmUp()
		}
	})
	return r.err
}

// Version is the version of the ONNX Runtime library loaded in this process, or ""
// while none is.
func Version() string {
	env.Lock()
	defer env.Unlock()
	if env.lib == "" {
		return ""
	}
	return ort.GetVersion()
}

func initEnv(lib string) error {
	env.Lock()
	defer env.Unlock()
	switch {
	case env.lib == lib:
		return nil
	case env.lib != "":
		return fmt.Errorf("ONNX Runtime is already loaded from %s in this process; cannot load %s too", env.lib, lib)
	}
	tuneMalloc()
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return libraryNotFound("loading %s: %v (is it ONNX Runtime 1.24.x for this platform? `make onnxruntime` installs one)", lib, err)
	}
	env.lib = lib
	return nil
}
