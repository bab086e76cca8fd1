package authority

// SandboxNetwork reports the profile's sandbox.network now (false = tools
// get loopback only): the default new sessions freeze, for runtime.describe.
func (a *Authority) SandboxNetwork() bool { return a.cfg.Settings().Sandbox.Network }
