package cli

func runReload(e *env, args []string) error {
	fs := e.flagSet("reload")
	version := fs.String("version", "", "the version to reload (default: the model's latest)")
	pos, err := e.parse(fs, "reload", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("reload takes one model name, got %d arguments", len(pos))
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	v := *version
	if v == "" {
		if v, err = latest(e, c, pos[0]); err != nil {
			return err
		}
	}
	ctx, cancel := e.call()
	defer cancel()
	res, err := c.Reload(ctx, pos[0], v)
	if err != nil {
		return err
	}
	return e.print(res)
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
