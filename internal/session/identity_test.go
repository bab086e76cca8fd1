package session

import (
	"testing"
)

func TestLogicalIDGolden(t *testing.T) {
	t.Parallel()
	// Expected values: sha256 of the compact JSON array, computed outside Go.
	tests := []struct {
		profile, subject, request, want string
	}{
		{"prof", "uid:1000", "desk-42", "local-f5de4bab0611e28a0090985d1a2685aa9bc9bbd3779d065be192e6c33c0c07f3"},
		{"fixture", "fixture-creator", "fresh", "local-3c9da02ea4eaf00692390671cf8f9e1cd8bfa712a15a608b18332343e71c7643"},
		// <, > and & are not HTML-escaped.
		{"a<b", "c&d", "e>f", "local-d11dcc366fb94193ac01977ef8bcf2b4e83c7b6c2ce8492dc7d46ca1194fd1b9"},
		// Non-ASCII is UTF-8, not \u-escaped.
		{"p", "uid:1", "é", "local-e903a42b8b7a04f58125434f5eeb4102f3bae71d05e28c629f8d25be16eb9383"},
	}
	for _, tt := range tests {
		if got := LogicalID(tt.profile, tt.subject, tt.request); got != tt.want {
			t.Errorf("LogicalID(%q, %q, %q) = %s, want %s", tt.profile, tt.subject, tt.request, got, tt.want)
		}
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{RouteKey("local-ab"), "agent:main:local:dm:local-ab"},
		{ReceiptKey("local-ab"), "gateway.local_policy.v1:local-ab"},
		{CredentialRef("sk-secret"), "launch:746b4ad1ca9129e1"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	for key, want := range map[string]string{
		"gateway.local_policy.v1:local-ab": "local-ab",
		"gateway.local_policy.v1:":         "",
		"gateway.profile_id":               "",
	} {
		id, ok := IDFromReceiptKey(key)
		if id != want || ok != (want != "") {
			t.Errorf("IDFromReceiptKey(%q) = %q, %v", key, id, ok)
		}
	}
}

func TestNewRequestID(t *testing.T) {
	t.Parallel()
	a, b := newRequestID(), newRequestID()
	if len(a) != 32 || a == b {
		t.Fatalf("newRequestID = %q, %q", a, b)
	}
}
