package service

import (
	"fmt"
	"strings"
)

// Unit renders the user unit that runs `<exe> --home <home> gateway run`
// with PATH set to path. See the package doc for the hardening chosen and
// the options left out.
//
//   - Restart=on-failure restarts a crashed gateway; the exit statuses that
//     a restart cannot fix do not loop (RestartPreventExitStatus: 2 = the
//     home or config is refused, 3 = another gateway owns the home, 5 = the
//     database is damaged).
//   - KillMode=mixed: SIGTERM goes to the gateway alone, which drains its
//     turns and ends its tools itself; whatever is left after
//     TimeoutStopSec (above gateway.shutdown_timeout, 10 s by default) is
//     killed.
func Unit(exe, home, path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `[Unit]
Description=Hermes Gateway (%s)
Documentation=https://github.com/hermes-gateway/hermes

[Service]
Type=simple
ExecStart=%s --home %s gateway run
Environment=%s
Restart=on-failure
RestartSec=2s
RestartPreventExitStatus=2 3 5
KillMode=mixed
TimeoutStopSec=60s
UMask=0077
NoNewPrivileges=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes

[Install]
WantedBy=default.target
`, specifiers(home), execArg(exe), execArg(home), quoted("PATH="+path))
	return b.String()
}

// specifiers escapes systemd's % specifiers.
func specifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// quoted is a double-quoted unit-file word: backslash and quote escaped,
// specifiers escaped.
func quoted(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	return `"` + specifiers(s) + `"`
}

// execArg is one quoted ExecStart argument; ExecStart also expands $VAR,
// so $ is doubled.
func execArg(s string) string { return quoted(strings.ReplaceAll(s, "$", "$$")) }
