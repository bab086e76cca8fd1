package tools

import "context"

// beforeMutate tells the gateway that a tool is about to change the work
// tree (write_file, patch, every terminal command), so it can checkpoint
// the cwd first (Env.BeforeMutate). An error means the call must not run:
// the turn is being cut.
func beforeMutate(ctx context.Context, env *Env) error {
	if env.BeforeMutate == nil {
		return nil
	}
	return env.BeforeMutate(ctx)
}
