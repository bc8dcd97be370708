package repocheck

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the checks from the module root, where the Makefile and
// the packages they read are.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
