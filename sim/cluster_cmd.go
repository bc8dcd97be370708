package sim

import (
	"slices"
	"strconv"
	"strings"

	"locksim/sim/resp"
)

// command serves CLUSTER subcommands on node n, with the replies Redis 7
// gives in RESP2 (what go-redis, redis-cli and other cluster clients read
// to learn the slot map).
func (cl *cluster) command(n *node, args []string) resp.Reply {
	if len(args) < 2 {
		return resp.ErrorReply("ERR wrong number of arguments for 'cluster' command")
	}
	sub := strings.ToUpper(args[1])
	argc := func(want int) bool { return len(args) == want }
	arity := resp.ErrorReply("ERR wrong number of arguments for 'cluster|" + strings.ToLower(sub) + "' command")
	switch sub {
	case "KEYSLOT":
		if !argc(3) {
			return arity
		}
		return resp.IntReply(int64(KeySlot(args[2])))
	case "MYID":
		if !argc(2) {
			return arity
		}
		return resp.BulkReply(nodeID(n.name))
	case "SLOTS":
		if !argc(2) {
			return arity
		}
		return cl.slotsReply()
	case "SHARDS":
		if !argc(2) {
			return arity
		}
		return cl.shardsReply()
	case "NODES":
		if !argc(2) {
			return arity
		}
		return resp.BulkReply(cl.nodesText(n))
	case "INFO":
		if !argc(2) {
			return arity
		}
		return resp.BulkReply(cl.infoText(n))
	case "FAILOVER":
		return cl.manualFailover(n, args)
	case "COUNTKEYSINSLOT", "GETKEYSINSLOT":
		slot, err := strconv.Atoi(args[2])
		if len(args) < 3 || err != nil || slot < 0 || slot >= ClusterSlots {
			return resp.ErrorReply("ERR Invalid slot")
		}
		var keys []resp.Reply
		for _, k := range n.m.Keys() { // sorted
			if KeySlot(k) == slot {
				keys = append(keys, resp.BulkReply(k))
			}
		}
		if sub == "COUNTKEYSINSLOT" {
			return resp.IntReply(int64(len(keys)))
		}
		if !argc(4) {
			return arity
		}
		max, err := strconv.Atoi(args[3])
		if err != nil || max < 0 {
			return resp.ErrorReply("ERR Invalid number of keys")
		}
		return resp.Reply{Kind: resp.Array, Elems: keys[:min(max, len(keys))]}
	}
	return resp.ErrorReply("ERR unknown subcommand '" + args[1] + "'. Try CLUSTER HELP.")
}

// ranges returns the slot map as (first, last, group index) runs, in slot
// order; unassigned slots are left out.
func (cl *cluster) ranges() (rs [][3]int) {
	for s := 0; s < ClusterSlots; {
		g := cl.owner[s]
		e := s
		for e+1 < ClusterSlots && cl.owner[e+1] == g {
			e++
		}
		if g >= 0 {
			rs = append(rs, [3]int{s, e, int(g)})
		}
		s = e + 1
	}
	return rs
}

// members returns a group's primary, then its replicas in config order.
func (cl *cluster) members(g *group) []*node {
	ns := []*node{cl.w.nodes[g.primary]}
	for _, m := range g.members {
		if m != g.primary && cl.w.nodes[m].role == roleReplica {
			ns = append(ns, cl.w.nodes[m])
		}
	}
	return ns
}

func bulks(ss ...string) resp.Reply {
	r := resp.Reply{Kind: resp.Array}
	for _, s := range ss {
		r.Elems = append(r.Elems, resp.BulkReply(s))
	}
	return r
}

// slotsReply is CLUSTER SLOTS: per range, first and last slot, then the
// primary and the replicas as [host, port, id, {}] (Redis 7's layout, the
// fourth element its empty networking metadata).
func (cl *cluster) slotsReply() resp.Reply {
	out := resp.Reply{Kind: resp.Array}
	for _, r := range cl.ranges() {
		e := resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.IntReply(int64(r[0])), resp.IntReply(int64(r[1]))}}
		for _, m := range cl.members(cl.groups[r[2]]) {
			e.Elems = append(e.Elems, resp.Reply{Kind: resp.Array, Elems: []resp.Reply{
				resp.BulkReply(m.name), resp.IntReply(6379), resp.BulkReply(nodeID(m.name)), {Kind: resp.Array},
			}})
		}
		out.Elems = append(out.Elems, e)
	}
	return out
}

// shardsReply is CLUSTER SHARDS (Redis 7.0): per group, its slot ranges
// and its nodes with role, replication offset and health.
func (cl *cluster) shardsReply() resp.Reply {
	out := resp.Reply{Kind: resp.Array}
	rs := cl.ranges()
	for gi, g := range cl.groups {
		slots := resp.Reply{Kind: resp.Array}
		for _, r := range rs {
			if r[2] == gi {
				slots.Elems = append(slots.Elems, resp.IntReply(int64(r[0])), resp.IntReply(int64(r[1])))
			}
		}
		nodes := resp.Reply{Kind: resp.Array}
		for _, m := range cl.members(g) {
			role, off, health := "master", m.offset, "online"
			if m.role == roleReplica {
				role, off = "replica", m.applied
			}
			if !m.up {
				health = "failed"
			}
			nodes.Elems = append(nodes.Elems, resp.Reply{Kind: resp.Array, Elems: []resp.Reply{
				resp.BulkReply("id"), resp.BulkReply(nodeID(m.name)),
				resp.BulkReply("port"), resp.IntReply(6379),
				resp.BulkReply("ip"), resp.BulkReply(m.name),
				resp.BulkReply("endpoint"), resp.BulkReply(m.name),
				resp.BulkReply("role"), resp.BulkReply(role),
				resp.BulkReply("replication-offset"), resp.IntReply(off),
				resp.BulkReply("health"), resp.BulkReply(health),
			}})
		}
		out.Elems = append(out.Elems, resp.Reply{Kind: resp.Array, Elems: []resp.Reply{
			resp.BulkReply("slots"), slots, resp.BulkReply("nodes"), nodes,
		}})
	}
	return out
}

// nodesText is CLUSTER NODES as node self sees it: one line per node,
// "<id> <ip:port@cport> <flags> <primary id or -> <ping-sent> <pong-recv>
// <config-epoch> <link-state> <slots...>", migrating slots as
// "[slot->-id]" and importing ones as "[slot-<-id]".
func (cl *cluster) nodesText(self *node) string {
	var b strings.Builder
	rs := cl.ranges()
	for gi, g := range cl.groups {
		primary := cl.w.nodes[g.primary]
		for _, m := range cl.members(g) {
			var flags []string
			if m == self {
				flags = append(flags, "myself")
			}
			master := "-"
			if m == primary {
				flags = append(flags, "master")
			} else {
				flags = append(flags, "slave")
				master = nodeID(primary.name)
			}
			link := "connected"
			if !m.up {
				flags = append(flags, "fail")
				link = "disconnected"
			}
			b.WriteString(nodeID(m.name) + " " + nodeAddr(m.name) + "@16379 " + strings.Join(flags, ",") + " " + master +
				" 0 0 " + strconv.Itoa(gi+1) + " " + link)
			if m == primary {
				for _, r := range rs {
					if r[2] != gi {
						continue
					}
					b.WriteString(" " + strconv.Itoa(r[0]))
					if r[1] != r[0] {
						b.WriteString("-" + strconv.Itoa(r[1]))
					}
				}
				for _, s := range sortedInts(cl.moving) {
					t := cl.groups[cl.moving[s]]
					o := cl.groups[cl.owner[s]]
					switch {
					case m == self && o == g:
						b.WriteString(" [" + strconv.Itoa(s) + "->-" + nodeID(t.primary) + "]")
					case m == self && t == g:
						b.WriteString(" [" + strconv.Itoa(s) + "-<-" + nodeID(o.primary) + "]")
					}
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// infoText is CLUSTER INFO's first fields.
func (cl *cluster) infoText(self *node) string {
	assigned, known := 0, 0
	for _, o := range cl.owner {
		if o >= 0 {
			assigned++
		}
	}
	for _, g := range cl.groups {
		known += len(cl.members(g))
	}
	state := "ok"
	if assigned < ClusterSlots {
		state = "fail"
	}
	my := 0
	for gi, g := range cl.groups {
		if self.group == g {
			my = gi + 1
		}
	}
	lines := []string{
		"cluster_state:" + state,
		"cluster_slots_assigned:" + strconv.Itoa(assigned),
		"cluster_slots_ok:" + strconv.Itoa(assigned),
		"cluster_slots_pfail:0",
		"cluster_slots_fail:0",
		"cluster_known_nodes:" + strconv.Itoa(known),
		"cluster_size:" + strconv.Itoa(len(cl.groups)),
		"cluster_current_epoch:" + strconv.FormatInt(cl.epoch, 10),
		"cluster_my_epoch:" + strconv.Itoa(my),
	}
	return strings.Join(lines, "\r\n") + "\r\n"
}

// sortedInts returns the keys of m in order.
func sortedInts[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
