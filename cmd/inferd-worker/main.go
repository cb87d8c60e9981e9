package main

import (
	"os"

	"github.com/inferd/inferd/internal/app"
)

func main() { os.Exit(app.Main(app.WorkerCommand(), os.Args[1:], os.Stdout, os.Stderr)) }
