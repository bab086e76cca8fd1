//go:build !linux

package sandbox

import (
	"os"
	"os/exec"
)

// Off Linux there is no sandbox yet: strict mode refuses, auto runs
// commands bare at LevelNone (visibly, through Status).
func probeCached(string) host {
	return host{userNSDetail: "needs Linux", abiDetail: "needs Linux"}
}

func finish(cmd *exec.Cmd, dir string, _ Level, _ bool) *exec.Cmd {
	cmd.Dir = dir
	return cmd
}

func runHelper([]string) {
	os.Stderr.WriteString("hermes sandbox: needs Linux\n")
	os.Exit(125)
}
