package main

import (
	"os"

	"github.com/inferd/inferd/internal/app"
)

func main() { os.Exit(app.Main("inferd", app.Run)) }
