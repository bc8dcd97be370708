package sim

import (
	"strconv"

	"locksim/sim/resp"
)

// MaxRecordedBytes bounds each command argument and each reply an event
// records: a longer one is cut to its first bytes and its length, so that a
// huge value (refused or not) cannot make the history, or a report of it,
// hold it once per event. The commands themselves run on the whole value.
const MaxRecordedBytes = 4096

// boundArgs returns args, or a copy with every argument after the command
// name cut to MaxRecordedBytes.
func boundArgs(args []string) []string {
	long := false
	for _, a := range args {
		long = long || len(a) > MaxRecordedBytes
	}
	if !long {
		return args
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = boundText(a)
	}
	return out
}

// boundText cuts s to MaxRecordedBytes, saying how long it was.
func boundText(s string) string {
	if len(s) <= MaxRecordedBytes {
		return s
	}
	return s[:MaxRecordedBytes] + "...(" + strconv.Itoa(len(s)) + " bytes)"
}

// recordedReply is boundText(r.String()), rendering only the bytes it
// keeps: a 60 MB reply is not rendered whole to record its first 4 KiB.
func recordedReply(r resp.Reply) string {
	head, total := r.StringHead(MaxRecordedBytes)
	if total <= MaxRecordedBytes {
		return head
	}
	return head + "...(" + strconv.Itoa(total) + " bytes)"
}
