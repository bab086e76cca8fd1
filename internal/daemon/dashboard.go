package daemon

import (
	"github.com/hermes-gateway/hermes/internal/auth"
	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/dashboard"
	"github.com/hermes-gateway/hermes/internal/server"
)

// dashboard builds the web dashboard for the listener: it must be called
// after d.ln is open (the Origin allow-list needs the port). In gated mode
// the OIDC client secret is resolved from client_secret_env (process
// environment, then .env); it is never logged.
func (d *daemon) dashboard() (server.Dashboard, error) {
	oc := d.cfg.Dashboard.OIDC
	var secret auth.Secret
	if oc.ClientSecretEnv != "" {
		dotenv, err := config.LoadEnv(d.home)
		if err != nil {
			return nil, exitf(ExitRuntime, "dashboard: %v", err)
		}
		secret = auth.NewSecret(d.cfg.ResolveAPIKey(oc.ClientSecretEnv, dotenv).Reveal())
	}
	dash, err := dashboard.New(dashboard.Config{
		Tickets: d.tickets, ProfileID: d.profileID, APIOrigin: d.apiOrigin(),
		PublicURL: d.cfg.Dashboard.PublicURL, Home: d.home, Logger: d.log.With("component", "dashboard"),
		OIDC: dashboard.OIDCConfig{
			Issuer: oc.Issuer, ClientID: oc.ClientID, ClientSecret: secret,
			AllowedSubjects: oc.AllowedSubjects, AllowedEmails: oc.AllowedEmails,
		},
	})
	if err != nil {
		return nil, exitf(ExitRuntime, "%v (check dashboard.public_url and dashboard.oidc in config.yaml)", err)
	}
	d.log.Info("dashboard ready", "gated", d.cfg.Gated(), "instance_id", d.instanceID)
	return dash, nil
}
