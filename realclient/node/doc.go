// Package node runs Node.js lock libraries as simulated client processes
// of realclient, deterministically (docs/node.md).
package node
