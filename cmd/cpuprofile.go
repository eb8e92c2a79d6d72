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
	f, err := createProfile("--cpuprofile", path)
	if err != nil {
		return nil, err
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

// startMemProfile opens path for the hidden --memprofile flag (as the go
// command's -memprofile) and returns the function that writes the
// allocation profile of the whole command there (go tool pprof
// -sample_index=alloc_space FILE for bytes allocated, inuse_space for what
// was live at the last collection) and closes the file.
func startMemProfile(path string) (func() error, error) {
	f, err := createProfile("--memprofile", path)
	if err != nil {
		return nil, err
	}
	return func() error {
		werr := pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("--memprofile: %w", werr)
		}
		return nil
	}, nil
}

// createProfile creates a profile file for flag, refusing a missing
// parent folder as a usage error.
func createProfile(flag, path string) (*os.File, error) {
	if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, Usagef("%s: cannot write %s: folder %s does not exist (wolong creates no parent folders)", flag, path, dir)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return f, nil
}
