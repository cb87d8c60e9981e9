// Command inferd is the API server: it serves the models of MODELS_DIR and the built-in
// echo model over HTTP. Settings come from the environment; `inferd --help` lists them.
package main
