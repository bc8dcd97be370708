package sim

import "strings"

// cmdInfo is what the node's hot path asks about a command name (upper
// case): whether the release has it, whether it writes, whether miniredis
// flags it read-only, whether the node serves it itself, and where its
// keys are. preHook and handle asked these of five tables by name, each
// a map lookup (miniredis's two behind its server's mutex and an upper
// casing), about eight per command; a node now looks the name up once in
// its own small table (cmdInfoOf), filled on a name's first use. Every
// answer is a pure function of the name, the release and the commands
// miniredis registers, which are fixed once the node booted.
type cmdInfo struct {
	known    bool     // knownCommand
	write    bool     // isWriteCommand
	readOnly bool     // miniredis's IsReadOnlyCommand
	node     bool     // nodeCommands: served by preHook
	placed   bool     // in keyPlaces
	place    keyPlace // keyPlaces[name] when placed
}

// cmdInfoOf returns the node's answers for cmd (upper case).
func (n *node) cmdInfoOf(cmd string) *cmdInfo {
	if ci := n.cmds[cmd]; ci != nil {
		return ci
	}
	ci := &cmdInfo{
		known:    n.knownCommand(cmd),
		write:    isWriteCommand(cmd),
		readOnly: n.m.IsReadOnlyCommand(cmd),
		node:     nodeCommands[cmd],
	}
	ci.place, ci.placed = keyPlaces[cmd]
	if len(n.cmds) >= maxCmdInfos || len(cmd) > maxCmdInfoName {
		return ci // names a client made up: answered, not kept
	}
	if n.cmds == nil {
		n.cmds = map[string]*cmdInfo{}
	}
	n.cmds[strings.Clone(cmd)] = ci // the name may share a script's large string
	return ci
}

// maxCmdInfos and maxCmdInfoName bound a node's table: a client sending
// made-up command names costs the lookups, not memory.
const (
	maxCmdInfos    = 64
	maxCmdInfoName = 32
)
