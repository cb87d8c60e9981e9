// Package step is the catalogue of declarative pre- and postprocessing steps that a
// model config lists: to_tensor, standardize and cast before the model; softmax,
// argmax, label_map, top_k, threshold, round and squeeze after it.
//
// Steps are built once, at load time, against the signature the model declares, so an
// unknown step, a bad parameter or a shape that does not fit the model is a config
// error before any request arrives. At request time a preprocess step rejects client
// input with a pipeline.InputError (HTTP 400 invalid_input) that names the item by its
// index and the path inside it, which the caller words as the client sent it;
// a postprocess step sees only model output, so what it rejects is an
// pipeline.ErrExecution (HTTP 500): the client cannot fix it.
//
// A tensor call (the Open Inference Protocol) runs the same steps in the same order
// but for what only a JSON request has: BuildTensorPre and BuildTensorPost build that
// view of a config, and tensor.go says what each step does in it.
//
// A config that lists no preprocess steps gets the to_tensor that reads the model's
// one input as it is, so that a model.yaml of a backend and an artifact serves
// (bare.go).
//
// The package knows nothing of YAML or files: a config reader decodes each step's
// parameters into the struct Def.Params returns, then calls BuildPre and BuildPost.
package step
