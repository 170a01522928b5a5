package testtool

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Group is a command started by StartGroup: the leader of its own process
// group, and the guard that kills that group when this process dies.
type Group struct {
	Cmd   *exec.Cmd
	guard *exec.Cmd
	done  chan struct{} // closed when the leader has exited and been waited for
	err   error         // the leader's exit, set before done is closed
	// guardEnded ends the guard once (endGuard).
	guardEnded sync.Once
}

// endGuard stops the guard: SIGKILL, not the end of its input, since by
// the time a guard would act the group's id may be another group's.
func (g *Group) endGuard() {
	g.guardEnded.Do(func() {
		_ = g.guard.Process.Kill()
		_ = g.guard.Wait()
	})
}

// guardScript is the guard: it reads the group's id, then waits for the
// end of its input, which comes when the process holding the pipe's write
// end (this test binary) has gone, however it went. The test binary's own
// death (its -timeout panic, Ctrl-C, SIGTERM, SIGKILL) runs no cleanup;
// Pdeathsig would not do either: it reaches the direct child only (not a
// shell's background jobs) and fires when the forking OS thread exits.
const guardScript = `read -r pgid || exit 0
while read -r _; do :; done
kill -s KILL -- "-$pgid" 2>/dev/null`

// StartGroup starts cmd as the leader of its own process group (what it
// starts is stopped with it) and a guard that SIGKILLs the group if this
// process dies before Stop. Keep the Group until Stop: the guard's pipe is
// an *os.File, which the garbage collector closes once unreachable.
func StartGroup(cmd *exec.Cmd) (*Group, error) {
	guard := exec.Command("sh", "-c", guardScript)
	// Its own group too: Ctrl-C signals the terminal's foreground group,
	// the test binary's, and the guard has to outlive it.
	guard.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := guard.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := guard.Start(); err != nil {
		return nil, fmt.Errorf("starting the process group's guard: %w", err)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		_ = guard.Process.Kill()
		_ = guard.Wait()
		return nil, err
	}
	g := &Group{Cmd: cmd, guard: guard, done: make(chan struct{})}
	go func() {
		g.err = cmd.Wait()
		close(g.done)
		// A group that ended on its own needs no guard, and its id may be
		// reused by the time the test binary dies.
		if !groupAlive(cmd.Process.Pid) {
			g.endGuard()
		}
	}()
	if _, err := fmt.Fprintf(in, "%d\n", cmd.Process.Pid); err != nil {
		g.Stop(0)
		return nil, fmt.Errorf("telling the process group's guard its id: %w", err)
	}
	return g, nil
}

// Done is closed when the leader has exited (other members may remain).
func (g *Group) Done() <-chan struct{} { return g.done }

// Wait waits for the leader to exit and returns its exit error, as
// exec.Cmd.Wait does.
func (g *Group) Wait() error {
	<-g.done
	return g.err
}

// Stop sends SIGTERM to the group, SIGKILL after grace (again every grace
// while members remain), and returns once no member is left; then it ends
// the guard.
func (g *Group) Stop(grace time.Duration) {
	pgid := g.Cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			deadline = time.Now().Add(grace)
		}
		time.Sleep(100 * time.Millisecond)
	}
	<-g.done
	g.endGuard()
}

// groupAlive reports whether process group pgid has a member that is not a
// zombie. A killed member whose parent has gone waits for PID 1 to reap it,
// and a container's PID 1 may do so late or never.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc: what kill says
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		state, pgrp, ok := procState(e.Name())
		if ok && pgrp == pgid && state != "Z" && state != "X" {
			return true
		}
	}
	return false
}

// procState reads the state and process group of process pid from
// /proc/pid/stat (the fields after the command name, which may hold
// spaces and parentheses).
func procState(pid string) (state string, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", 0, false
	}
	f := strings.Fields(s[i+1:]) // state, ppid, pgrp, ...
	if len(f) < 3 {
		return "", 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	return f[0], pgrp, err == nil
}
