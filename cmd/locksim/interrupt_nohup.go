//go:build js || wasip1 || windows

package main

import "os"

// hangupSignal is empty where the platform has no SIGHUP (js/wasm: the
// lab's build).
var hangupSignal = []os.Signal{}
