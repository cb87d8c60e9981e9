// Command inferd is the API server: it serves the models of MODELS_DIR and the built-in
// echo model over HTTP. Settings come from the environment; see README.md.
package main

import (
	"os"

	"github.com/inferd/inferd/internal/app"
)

func main() { os.Exit(app.Main("inferd", app.Run)) }
