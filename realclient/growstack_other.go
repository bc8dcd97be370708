//go:build !amd64 && !arm64

package realclient

// growStack has no assembly here: go-redis's commands grow the stack as
// they go (growstack.go).
func growStack() {}
