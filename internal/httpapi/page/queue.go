package page

import (
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/job"
)

// QueuesPath is where the queue dashboard is mounted.
const QueuesPath = "/admin/queues"

// Queues serves ui, the queue dashboard (asynqmon, built with QueuesPath as its root
// path), at QueuesPath for admin keys (Admin), its pause and resume of a queue through
// control when that is set.
func (p Pages) Queues(r chi.Router, ui http.Handler, control job.QueueControl) error {
	if p.Admin == nil {
		return errors.New("page: the queue dashboard needs an admin guard")
	}
	h := p.sameOriginWrites(p.Admin(p.problemErrors(p.queueControls(control, ui))))
	r.Handle(QueuesPath, h)
	r.Handle(QueuesPath+"/*", h)
	return nil
}

// queueControls answers the dashboard's pause and resume of a queue through control,
// which is idempotent and knows an unknown queue, instead of through asynqmon, which
// answered 500 to a repeated pause or resume and 204 to a queue that does not exist.
func (p Pages) queueControls(control job.QueueControl, next http.Handler) http.Handler {
	if control == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, QueuesPath+"/api/queues/")
		i := strings.LastIndexByte(rest, ':')
		if !ok || r.Method != http.MethodPost || i < 0 {
			next.ServeHTTP(w, r)
			return
		}
		var err error
		switch name, action := rest[:i], rest[i+1:]; action {
		case "pause":
			err = control.PauseQueue(name)
		case "resume":
			err = control.ResumeQueue(name)
		default:
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			p.error(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
