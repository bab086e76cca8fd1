package cli

import "context"

func runTUI(ctx context.Context, e *env, o chatOptions) error {
	return usagef("chat: the terminal UI is not built yet; use -q TEXT")
}
