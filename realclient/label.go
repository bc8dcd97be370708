package realclient

import (
	"bytes"
	"context"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sync"
	"unsafe"
)

// Which goroutine of a process wrote a command (WithGoroutines with a
// shared client, Env.SharedClients) is read from the goroutine's pprof
// labels: each workload goroutine carries goroutineLabel, naming its
// xproc, and every goroutine it starts (a library's watchdog, go-redis's
// dial retries) inherits it. A goroutine a timer starts (time.AfterFunc)
// carries none.

// goroutineLabel is the pprof label naming the xproc (the client
// goroutine's incarnation) a goroutine works for: its label id
// (xproc.label), unique in the test binary. A goroutine started while
// Env.Shared built a shared object carries sharedBuildLabel instead.
const goroutineLabel = "locksim-goroutine"

// sharedBuildLabel is goroutineLabel's value on goroutines started while
// a shared object was built: they serve the process, not one goroutine.
const sharedBuildLabel = "shared-build"

// runtimeGetProfLabel is the runtime's pointer to the calling goroutine's
// pprof labels (runtime/pprof's labelMap), the one cheap way to read them
// (a few ns; a stack header, the fallback, costs tens of microseconds).
// The runtime keeps this link for outside users (go.dev/issue/67401).
//
//go:linkname runtimeGetProfLabel runtime/pprof.runtime_getProfLabel
func runtimeGetProfLabel() unsafe.Pointer

// profLabels mirrors runtime/pprof's labelMap (a LabelSet: a sorted list
// of key and value pairs). labelsLayoutOK checks the mirror once before
// it is trusted.
type profLabels struct {
	list []struct{ key, value string }
}

// labelsLayoutOK reports whether profLabels reads the runtime's labels:
// a goroutine given known labels must read them back through it.
var labelsLayoutOK = sync.OnceValue(func() bool {
	ok := make(chan bool)
	go func() {
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("locksim-probe-a", "x1", "locksim-probe-b", "y22")))
		p := runtimeGetProfLabel()
		if p == nil {
			ok <- false
			return
		}
		m := (*profLabels)(p)
		if len(m.list) != 2 || cap(m.list) < 2 || cap(m.list) > 64 {
			ok <- false
			return
		}
		ok <- m.list[0].key == "locksim-probe-a" && m.list[0].value == "x1" && m.list[1].key == "locksim-probe-b" && m.list[1].value == "y22"
	}()
	return <-ok
})

// currentLabel returns the calling goroutine's pprof label key ("" when
// it has none).
func currentLabel(key string) string {
	if labelsLayoutOK() {
		p := runtimeGetProfLabel()
		if p == nil {
			return ""
		}
		for _, l := range (*profLabels)(p).list {
			if l.key == key {
				return l.value
			}
		}
		return ""
	}
	return stackLabel(key)
}

// stackLabel reads label key from the calling goroutine's stack header,
// which shows its labels under GODEBUG tracebacklabels=1 (runOnce sets it).
func stackLabel(key string) string {
	buf := make([]byte, 1024)
	buf = buf[:runtime.Stack(buf, false)]
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i] // the header: "goroutine 7 [running labels:{...}]:"
	}
	m := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `": "([^"]*)"`).FindSubmatch(buf)
	if m == nil {
		return ""
	}
	return string(m[1])
}
