package hooks

import "github.com/hermes-gateway/hermes/internal/sandbox"

func policyIn(dir string) sandbox.Policy { return sandbox.Policy{Cwd: dir} }
