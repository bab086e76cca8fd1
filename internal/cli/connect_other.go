//go:build !linux

package cli

// keepSecret has nothing to do where PR_SET_DUMPABLE does not exist.
func keepSecret() {}
