package main

import (
	"os"

	"github.com/inferd/inferd/internal/daemon"
	"github.com/inferd/inferd/internal/worker"
)

func main() { os.Exit(daemon.Main(worker.Command(), os.Args[1:], os.Stdout, os.Stderr)) }
