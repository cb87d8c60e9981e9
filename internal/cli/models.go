package cli

import (
	"fmt"

	"github.com/inferd/inferd/client"
)

func runModels(e *env, args []string) error {
	fs := e.flagSet("models")
	flagVersion := fs.String("version", "", "deprecated: give get the version as its second argument")
	pos, err := e.parse(fs, "models", args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 1 && pos[0] == "list":
	case len(pos) >= 2 && pos[0] == "get":
	case len(pos) > 0 && pos[0] != "list" && pos[0] != "get":
		return usagef("models %q: want list or get%s", pos[0], didYouMean(pos[0], []string{"list", "get"}))
	default:
		return usagef("models takes list, or get and a model name")
	}
	var name, v string
	if pos[0] == "get" {
		if name, v, err = e.nameVersion("models get", pos[1:], *flagVersion); err != nil {
			return err
		}
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	ctx, cancel := e.call()
	defer cancel()
	if pos[0] == "list" {
		l, err := c.Models(ctx)
		if err != nil {
			return err
		}
		return e.print(l)
	}
	if v == "" {
		if v, err = latest(e, c, name); err != nil {
			return err
		}
	}
	md, err := c.Model(ctx, name, v)
	if err != nil {
		return err
	}
	return e.print(md)
}

// latest is the last version the registry lists for name: the list is in natural
// order (v10 after v9), the order the `latest` routing rule uses.
func latest(e *env, c *client.Client, name string) (string, error) {
	ctx, cancel := e.call()
	defer cancel()
	l, err := c.Models(ctx)
	if err != nil {
		return "", err
	}
	v := ""
	for _, m := range l.Models {
		if m.Name == name {
			v = m.Version
		}
	}
	if v == "" {
		return "", notFoundError(fmt.Sprintf("no model named %q; 'inferctl models list' shows the registry", name))
	}
	return v, nil
}
