package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// startCPUProfile starts a pprof CPU profile written to path (the hidden
// --cpuprofile flag, as the go command's -cpuprofile) and returns the
// function that stops it and closes the file.
func startCPUProfile(path string) (func() error, error) {
	if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, Usagef("--cpuprofile: cannot write %s: folder %s does not exist (wolong creates no parent folders)", path, dir)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
