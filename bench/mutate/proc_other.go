//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// killTogether leaves cmd's cancel to kill the wrapper alone (no process
// groups here).
func killTogether(cmd *exec.Cmd) {}

// maxRSS is not known here.
func maxRSS(ps *os.ProcessState) int64 { return 0 }
