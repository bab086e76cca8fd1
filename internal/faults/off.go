//go:build !faults

package faults

// Enabled reports whether this binary was built with -tags faults.
const Enabled = false

// Hit marks that execution reached point; without -tags faults it does nothing.
func Hit(point string) {}
