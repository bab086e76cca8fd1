package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/hermes-gateway/hermes/internal/config"
)

// checkModel makes one small request to model.base_url with the profile's
// key: GET /models, or — where the endpoint has no model list — a 1-token
// chat completion of model.default.
func checkModel(ctx context.Context, o Options, cfg config.Config) Check {
	if o.Offline {
		return skipped(CheckModel, "--offline")
	}
	base := strings.TrimRight(cfg.Model.BaseURL, "/")
	dotenv, err := config.LoadEnv(o.Home)
	if err != nil {
		return fail(CheckModel, ".env does not load: "+err.Error(), "fix "+filepath.Join(o.Home, ".env")+" (NAME=value lines)")
	}
	key := cfg.ResolveAPIKey(cfg.Model.APIKeyEnv, dotenv)
	status, err := get(ctx, o.HTTPClient, base+"/models", key)
	if err == nil && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented) {
		status, err = ping(ctx, o.HTTPClient, base+"/chat/completions", key, cfg.Model.Default)
	}
	if err != nil {
		return fail(CheckModel, fmt.Sprintf("%s is unreachable: %v", base, err),
			"start the model server, or fix model.base_url in config.yaml")
	}
	return modelVerdict(o.Home, base, cfg.Model.APIKeyEnv, key, status)
}

// modelVerdict reads the answer's status. The body is never shown: some
// endpoints echo the key they refused.
func modelVerdict(home, base, keyEnv string, key config.Secret, status int) Check {
	keyText := "no key sent (model.api_key_env is empty or unset)"
	if !key.IsZero() {
		keyText = "the key in " + keyEnv + " was accepted"
	}
	switch {
	case status >= 200 && status < 300:
		return pass(CheckModel, fmt.Sprintf("%s answered; %s", base, keyText))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if key.IsZero() {
			return fail(CheckModel, fmt.Sprintf("%s wants a key (HTTP %d) and none is set", base, status),
				fmt.Sprintf("put the key in %s as %s=… (model.api_key_env names the variable)", filepath.Join(home, ".env"), nameOr(keyEnv)))
		}
		return fail(CheckModel, fmt.Sprintf("%s refused the key in %s (HTTP %d)", base, keyEnv, status),
			fmt.Sprintf("put a valid key in %s as %s=…, or check model.base_url", filepath.Join(home, ".env"), keyEnv))
	}
	return fail(CheckModel, fmt.Sprintf("%s answered HTTP %d", base, status),
		"check model.base_url (it should end in the API root, e.g. …/v1) and the server's log")
}

func nameOr(env string) string {
	if env == "" {
		return "OPENAI_API_KEY"
	}
	return env
}

func get(ctx context.Context, c *http.Client, url string, key config.Secret) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	return do(c, req, key)
}

// ping is the smallest completion: one user word, at most one token.
func ping(ctx context.Context, c *http.Client, url string, key config.Secret, model string) (int, error) {
	body, _ := json.Marshal(map[string]any{
		"model": model, "max_tokens": 1, "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "ping"}},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	return do(c, req, key)
}

func do(c *http.Client, req *http.Request, key config.Secret) (int, error) {
	req.Header.Set("Accept", "application/json")
	if !key.IsZero() {
		req.Header.Set("Authorization", "Bearer "+key.Reveal())
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, scrubURLError(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, nil
}

// scrubURLError drops the method and URL net/http puts in front of a
// transport error (the caller names the base URL itself).
func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
