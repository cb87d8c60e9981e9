// Package graph is model graphs: one request through several model versions, declared
// in a version's model.yaml under graph instead of an artifact. A graph is
// orchestration above the registry, not a backend: it reads the member versions'
// tensors through Members when it is checked, and calls them through a Caller when it
// runs, so it never reaches into the registry that serves it.
//
// Parse reads the format, Check types every edge against the members' declared
// tensors (names, dtypes, shapes, cycles, joins), and (*Graph).Run executes a checked
// graph: steps with no dependency between them run concurrently, a step whose when
// condition is false is skipped, and a failed step fails the run (naming the step and
// wrapping the member's error) or, with on_error: fallback, answers its fallback.
package graph
