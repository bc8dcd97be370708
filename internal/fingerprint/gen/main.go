// Command gen writes internal/fingerprint/sum.go: the fingerprint of the
// locksim module's sources (package fingerprint). Run it with make
// fingerprint, or go generate ./internal/fingerprint/.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"locksim/internal/fingerprint"
)

func main() {
	root, err := fingerprint.Root(".")
	if err == nil {
		err = write(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func write(root string) error {
	sum, err := fingerprint.Compute(root)
	if err != nil {
		return err
	}
	path := filepath.Join(root, filepath.FromSlash(fingerprint.SumFile))
	src := fingerprint.Source(sum)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, src) {
		fmt.Printf("fingerprint %s: %s is up to date\n", sum, fingerprint.SumFile)
		return nil
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return err
	}
	fmt.Printf("fingerprint %s: wrote %s (commit it with the change)\n", sum, fingerprint.SumFile)
	return nil
}
