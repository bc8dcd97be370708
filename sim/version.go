package sim

import (
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
)

// Version is the Redis (or Valkey) release the nodes of a run model: the
// commands and options they accept. Config.Server names it ("redis-8.4");
// "" is DefaultServer.
//
// Every release locksim models behaves as Redis 7.0 (measured against
// redis-server 7.0.15, redisrules.go) except for the commands and options
// the feature table below gives a first release: a node refuses those
// under an older release with the real server's reply (an unknown command,
// or a syntax error for an option), and implements them under a newer one
// as that release documents them (versioned.go).
type Version struct {
	Flavor       string // "redis" or "valkey"
	Major, Minor int
	Patch        int
}

// The releases locksim models.
var (
	// Redis70 is the default: Debian 12's redis-server 7.0.15, which the
	// differential tests run against.
	Redis70 = Version{"redis", 7, 0, 15}
	// Redis84 adds SET's IFEQ, IFNE, IFDEQ and IFDNE options, DELEX and
	// DIGEST (https://redis.io/docs/latest/commands/set/, .../delex/,
	// .../digest/), and the hash-field expiry commands of 7.4 and 8.0.
	Redis84 = Version{"redis", 8, 4, 0}
	// Valkey90 adds DELIFEQ (https://valkey.io/commands/delifeq/), SET
	// IFEQ (Valkey 8.1, https://valkey.io/commands/set/) and hash-field
	// expiry; it has no DELEX (Valkey 9.2) or DIGEST.
	Valkey90 = Version{"valkey", 9, 0, 0}
)

// VersionAbout says what each modelled release adds, for listings.
var VersionAbout = map[Version]string{
	Redis70:  "the default: Redis 7.0, measured against redis-server 7.0.15",
	Redis84:  "adds SET IFEQ/IFNE/IFDEQ/IFDNE, DELEX, DIGEST (and hash-field expiry)",
	Valkey90: "adds SET IFEQ, DELIFEQ (and hash-field expiry); no DELEX or DIGEST",
}

// Versions lists the releases locksim models, the default first.
var Versions = []Version{Redis70, Redis84, Valkey90}

// DefaultServer is the release a run models when Config.Server is "".
const DefaultServer = "redis-7.0"

// Release is the version HELLO and INFO report: "7.0.15".
func (v Version) Release() string {
	return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) + "." + strconv.Itoa(v.Patch)
}

// String is the release's name as Config.Server and --redis take it:
// "redis-7.0".
func (v Version) String() string {
	return v.Flavor + "-" + strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor)
}

// VersionNames lists the modelled releases for messages: "redis-7.0 (the
// default), redis-8.4 or valkey-9.0".
func VersionNames() string {
	ws := make([]string, len(Versions))
	for i, v := range Versions {
		ws[i] = v.String()
	}
	ws[0] += " (the default)"
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// ParseVersion reads a release name: "redis-7.0", "redis-8.4",
// "valkey-9.0" (a patch level such as "redis-7.0.15" is accepted when it
// is the modelled one), or "" for DefaultServer.
func ParseVersion(s string) (Version, error) {
	if s == "" {
		return Redis70, nil
	}
	for _, v := range Versions {
		full := v.String() + "." + strconv.Itoa(v.Patch)
		if strings.EqualFold(s, v.String()) || strings.EqualFold(s, full) {
			return v, nil
		}
	}
	return Version{}, errors.Errorf("unknown server release %s: locksim models %s", bounded.Q(s), VersionNames())
}

// atLeast reports whether v is release major.minor of flavor or later.
func (v Version) atLeast(flavor string, since [2]int) bool {
	if v.Flavor != flavor || since == [2]int{} {
		return false
	}
	return v.Major > since[0] || v.Major == since[0] && v.Minor >= since[1]
}

// feature is the first release of each flavor with a command or an option
// Redis 7.0 lacks; zero: no modelled release of that flavor has it.
type feature struct{ redis, valkey [2]int }

// features are the commands (and SET's options, as "SET IFEQ") that
// miniredis implements or the nodes add (versioned.go) beyond Redis 7.0.
// Every other command miniredis has, Redis 7.0 has too
// (TestFeatureTableCoversMiniredis compares the lists).
var features = map[string]feature{
	// Redis 8.4: redis.io/docs/latest/commands/delex/ ("Available since
	// 8.4.0"); Valkey has it from 9.2, not modelled.
	"DELEX":  {redis: [2]int{8, 4}},
	"DIGEST": {redis: [2]int{8, 4}},
	// Valkey 9.0: valkey.io/commands/delifeq/ ("Since: 9.0.0").
	"DELIFEQ": {valkey: [2]int{9, 0}},
	// SET's history in Redis's set.json: "8.4.0: Added 'IFEQ', 'IFNE',
	// 'IFDEQ', 'IFDNE' options"; Valkey 8.1 added IFEQ alone.
	"SET IFEQ":  {redis: [2]int{8, 4}, valkey: [2]int{8, 1}},
	"SET IFNE":  {redis: [2]int{8, 4}},
	"SET IFDEQ": {redis: [2]int{8, 4}},
	"SET IFDNE": {redis: [2]int{8, 4}},
	// Hash-field expiry: Redis 7.4 (HEXPIRE, HPERSIST, HTTL, HPTTL) and
	// 8.0 (HSETEX); Valkey 9.0 (valkey.io/commands/hsetex/).
	"HEXPIRE":  {redis: [2]int{7, 4}, valkey: [2]int{9, 0}},
	"HPERSIST": {redis: [2]int{7, 4}, valkey: [2]int{9, 0}},
	"HTTL":     {redis: [2]int{7, 4}, valkey: [2]int{9, 0}},
	"HPTTL":    {redis: [2]int{7, 4}, valkey: [2]int{9, 0}},
	"HSETEX":   {redis: [2]int{8, 0}, valkey: [2]int{9, 0}},
}

// Has reports whether release v has the command or option name (upper
// case: "DELEX", "SET IFEQ"). Anything the feature table does not list is
// Redis 7.0's, which every modelled release has.
func (v Version) Has(name string) bool {
	f, ok := features[name]
	if !ok {
		return true
	}
	return v.atLeast("redis", f.redis) || v.atLeast("valkey", f.valkey)
}

// Needs names the first modelled release that has the command or option
// name, for a refusal: "redis-8.4".
func Needs(name string) string {
	var out []string
	for _, v := range Versions {
		if v.Has(name) {
			out = append(out, v.String())
		}
	}
	if len(out) == 0 {
		return "no modelled release"
	}
	return strings.Join(out, " or ")
}
