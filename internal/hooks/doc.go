// Package hooks runs the user's hook commands around a session's work, in
// the shape and with the protocol Claude Code hooks use (issue 12): the
// configuration (event → [{matcher, hooks: [{type: command, command,
// timeout, fail_closed}]}]), the tool-name matcher, the stdin/stdout/exit
// code protocol, and the Runner that starts each hook through the one
// sandbox Launcher, in the session cwd, under the tool sandbox policy, with
// a timeout that kills its process group.
//
// It may import only sandbox, for the Launcher every hook starts through,
// and must never import authority, store or tools: the turn calls the
// Runner, never the other way round.
//
// The package decides nothing about consent or journaling: the authority
// freezes a session's hook set at creation, asks for project-hook consent,
// and journals every Result as hook.run.
package hooks
