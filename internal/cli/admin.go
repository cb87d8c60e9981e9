package cli

import "fmt"

func runReload(e *env, args []string) error {
	fs := e.flagSet("reload")
	flagVersion := fs.String("version", "", "deprecated: give the version as the second argument, as in the REST path")
	pos, err := e.parse(fs, "reload", args)
	if err != nil {
		return err
	}
	name, v, err := e.nameVersion("reload", pos, *flagVersion)
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	if v == "" {
		if v, err = latest(e, c, name); err != nil {
			return err
		}
	}
	ctx, cancel := e.call()
	defer cancel()
	res, err := c.Reload(ctx, name, v)
	if err != nil {
		return err
	}
	return e.print(res)
}

// nameVersion takes `<name> [version]`, the order of the REST path
// /admin/models/{name}/{version}. The --version flag these commands took first still
// works, with a warning on stderr naming the form that replaces it, as kubectl keeps a
// deprecated flag working; giving the version both ways is refused.
func (e *env) nameVersion(cmd string, pos []string, flagVersion string) (string, string, error) {
	if len(pos) < 1 || len(pos) > 2 {
		return "", "", usagef("%s takes a model name and a version (default: the model's latest), got %d arguments", cmd, len(pos))
	}
	name := pos[0]
	if flagVersion == "" {
		if len(pos) == 2 {
			return name, pos[1], nil
		}
		return name, "", nil
	}
	if len(pos) == 2 {
		return "", "", usagef("give the version once: inferctl %s %s %s, without --version", cmd, name, pos[1])
	}
	fmt.Fprintf(e.stderr, "inferctl: --version is deprecated for %s; give the version as an argument: inferctl %s %s %s\n", cmd, cmd, name, flagVersion)
	return name, flagVersion, nil
}

func runMemory(e *env, args []string) error {
	fs := e.flagSet("memory")
	pos, err := e.parse(fs, "memory", args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("memory takes no arguments")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	ctx, cancel := e.call()
	defer cancel()
	res, err := c.Memory(ctx)
	if err != nil {
		return err
	}
	return e.print(res)
}
