package cli

import (
	"slices"

	"github.com/inferd/inferd/client"
)

func runJobs(e *env, args []string) error {
	fs := e.flagSet("jobs")
	progress := fs.Bool("progress", false, "with wait, show the status line even when stderr is not a terminal")
	pos, err := e.parse(fs, "jobs", args)
	if err != nil {
		return err
	}
	verbs := []string{"get", "cancel", "wait"}
	if len(pos) > 0 && !slices.Contains(verbs, pos[0]) {
		return usagef("jobs %q: want get, cancel or wait%s", pos[0], didYouMean(pos[0], verbs))
	}
	if len(pos) != 2 {
		return usagef("jobs takes get, cancel or wait and a job id")
	}
	verb, id := pos[0], pos[1]
	c, err := e.client()
	if err != nil {
		return err
	}
	if verb == "wait" {
		return e.waitJob(c, id, *progress)
	}
	ctx, cancel := e.call()
	defer cancel()
	var j *client.JobRecord
	if verb == "get" {
		j, err = c.Job(ctx, id)
	} else {
		j, err = c.CancelJob(ctx, id)
	}
	if err != nil {
		return err
	}
	return e.print(j)
}
