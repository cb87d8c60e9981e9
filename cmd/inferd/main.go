package main

import (
	"os"

	"github.com/inferd/inferd/internal/app"
	"github.com/inferd/inferd/internal/daemon"
)

func main() { os.Exit(daemon.Main(app.ServerCommand(), os.Args[1:], os.Stdout, os.Stderr)) }
