package cmd

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts a pprof CPU profile written to path (the hidden
// --cpuprofile flag, as the go command's -cpuprofile) and returns the
// function that stops it and closes the file.
func startCPUProfile(path string) (func() error, error) {
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
