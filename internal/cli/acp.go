package cli

import (
	"context"
)

// acpCmd is `hermes acp`: an Agent Client Protocol agent on stdio.
func acpCmd(ctx context.Context, e *env, args []string) error {
	return usagef("acp: not yet")
}
