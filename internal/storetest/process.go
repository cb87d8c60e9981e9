package storetest

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testport"
)

// process is a test's server process on a port of its own: started with its output in
// a file, waited for until it answers, killed and started again on the same port.
// Versitygw and FakeGCS are each one, with their own command and probe.
type process struct {
	name   string
	log    string                   // the file of its output
	within time.Duration            // how long it may take to answer
	cmd    func(port int) *exec.Cmd // the command that runs it on port
	ready  func() error             // nil once it answers
	port   int

	mu     sync.Mutex
	proc   *os.Process
	exited chan struct{} // closed once proc has been waited for
}

// open starts it on a free port. A port found free can be taken before the server
// binds it: it tries a few.
func (p *process) open(t testing.TB) {
	t.Helper()
	var err error
	for range 3 {
		if p.port, err = testport.Free(); err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		if err = p.start(); err == nil {
			return
		}
	}
	t.Fatalf("starting %s: %v", p.name, err)
}

// start runs it on p.port, unless it runs already, and waits until it answers, or
// fails with its output.
func (p *process) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc != nil {
		return nil
	}
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := p.cmd(p.port)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	for deadline := time.Now().Add(p.within); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			return fmt.Errorf("%s exited at start:\n%s", p.name, p.output())
		default:
		}
		err := p.ready()
		if err == nil {
			p.proc, p.exited = cmd.Process, exited
			return nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("%s did not answer on port %d within %s: %v\n%s", p.name, p.port, p.within, err, p.output())
		}
	}
}

// restart starts it again on its port, trying for up to within: the dead process's
// socket may linger for a moment.
func (p *process) restart(t testing.TB, within, pause time.Duration) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(pause) {
		if err = p.start(); err == nil {
			return
		}
	}
	t.Fatalf("restarting %s on port %d: %v", p.name, p.port, err)
}

// kill kills it (SIGKILL: no goodbye to its clients), if it runs.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc == nil {
		return
	}
	_ = p.proc.Kill()
	<-p.exited
	p.proc, p.exited = nil, nil
}

// output is the end of what it printed.
func (p *process) output() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}
