package cli

import (
	"slices"

	"github.com/inferd/inferd/client"
)

// runRepository speaks Triton's model repository extension (/v2/repository): the
// index of what the repository holds and each version's state, and loading or
// unloading a whole model, beside reload's one version.
func runRepository(e *env, args []string) error {
	fs := e.flagSet("repository")
	ready := fs.Bool("ready", false, "with index, list only the versions that serve")
	pos, err := e.parse(fs, "repository", args)
	if err != nil {
		return err
	}
	verbs := []string{"index", "load", "unload"}
	switch {
	case len(pos) > 0 && !slices.Contains(verbs, pos[0]):
		return usagef("repository %q: want index, load or unload%s", pos[0], didYouMean(pos[0], verbs))
	case len(pos) == 0:
		return usagef("repository takes index, or load or unload and a model name")
	case pos[0] == "index" && len(pos) != 1:
		return usagef("repository index takes no model name; it lists every model")
	case pos[0] != "index" && len(pos) != 2:
		return usagef("repository %s takes one model name, got %d arguments", pos[0], len(pos)-1)
	case pos[0] != "index" && *ready:
		return usagef("--ready is for repository index")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	ctx, cancel := e.call()
	defer cancel()
	var entries []client.OIPRepositoryModel
	switch pos[0] {
	case "index":
		entries, err = c.OIPRepositoryIndex(ctx, *ready)
	case "load":
		entries, err = c.OIPLoad(ctx, pos[1])
	default:
		entries, err = c.OIPUnload(ctx, pos[1])
	}
	if err != nil {
		return err
	}
	rows := make([]repositoryRow, len(entries))
	for i, m := range entries {
		rows[i] = repositoryRow{m.Name, m.Version, string(m.State), m.Reason}
	}
	return e.print(rows)
}

// repositoryRow is an index entry with its members in the contract's order (the
// SDK's struct has them alphabetical), so a table reads NAME VERSION STATE REASON.
type repositoryRow struct {
	Name    string  `json:"name"`
	Version *string `json:"version,omitempty"`
	State   string  `json:"state"`
	Reason  *string `json:"reason,omitempty"`
}
