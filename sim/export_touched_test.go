package sim

// SetFullRescan makes every refresh of the key watch read the whole
// keyspace (on) or follow the touched keys (off, the default), for
// touched_test.go's comparison; it returns the previous setting.
func SetFullRescan(on bool) bool {
	old := fullRescan
	fullRescan = on
	return old
}
