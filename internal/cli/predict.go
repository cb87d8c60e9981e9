package cli

import "github.com/inferd/inferd/client"

func runPredict(e *env, args []string) error {
	fs := e.flagSet("predict")
	version := fs.String("version", "", "model version (default: the model's routing rule picks one)")
	var src source
	fs.StringVar(&src.inline, "input", "", "the input as JSON, e.g. '[5.1,3.5,1.4,0.2]'")
	fs.StringVar(&src.file, "f", "", "a file holding the input as JSON; - reads stdin")
	pos, err := e.parse(fs, "predict", args)
	if err != nil {
		return err
	}
	model, err := modelAndStdin(pos, &src, "predict")
	if err != nil {
		return err
	}
	data, err := e.readValue(src)
	if err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	ctx, cancel := e.call()
	defer cancel()
	res, err := c.Predict(ctx, client.PredictRequest{Model: model, Version: *version, Data: data})
	if err != nil {
		return err
	}
	return e.print(res)
}

// modelAndStdin takes `<model> [-]`: a trailing "-" reads the input from stdin.
func modelAndStdin(pos []string, src *source, cmd string) (string, error) {
	if len(pos) == 2 && pos[1] == "-" {
		if src.file != "" {
			return "", usagef("give the input once: -f or -, not both")
		}
		src.file, pos = "-", pos[:1]
	}
	switch {
	case len(pos) == 2:
		// The second is most likely the input, which a flag carries.
		return "", usagef("%s takes one model name, got 2 arguments; give the input with --input (inferctl %s %s --input '%s'), -f file or -", cmd, cmd, pos[0], pos[1])
	case len(pos) != 1:
		return "", usagef("%s takes one model name, got %d arguments", cmd, len(pos))
	}
	return pos[0], nil
}
