// Command inferd is the API server: it serves the models of MODELS_DIR and the built-in
// echo model over HTTP. Settings come from the environment; see README.md.
package main
