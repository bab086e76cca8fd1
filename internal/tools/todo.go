package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// TodoStatus is the state of one todo item.
type TodoStatus string

// Todo statuses.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
)

// TodoItem is one entry of a session's todo list.
type TodoItem struct {
	ID      string     `json:"id"`
	Content string     `json:"content"`
	Status  TodoStatus `json:"status"`
}

// TodoList is a session's todo list. It is safe for concurrent use; the
// zero value is an empty list. It lives in memory only.
type TodoList struct {
	mu    sync.Mutex
	items []TodoItem // guarded by mu
}

// Items returns a copy of the list.
func (l *TodoList) Items() []TodoItem {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]TodoItem{}, l.items...)
}

// Replace sets the whole list.
func (l *TodoList) Replace(items []TodoItem) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append([]TodoItem{}, items...)
}

// Merge updates items with the same id (non-empty fields win) and appends
// the others in order.
func (l *TodoList) Merge(items []TodoItem) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, it := range items {
		i := l.indexLocked(it.ID)
		if i < 0 {
			if it.Status == "" {
				it.Status = TodoPending
			}
			l.items = append(l.items, it)
			continue
		}
		if it.Content != "" {
			l.items[i].Content = it.Content
		}
		if it.Status != "" {
			l.items[i].Status = it.Status
		}
	}
}

func (l *TodoList) indexLocked(id string) int {
	for i, it := range l.items {
		if it.ID == id {
			return i
		}
	}
	return -1
}

// todoTool manages the session's todo list (docs/protocol.md#tools "todo").
type todoTool struct{}

func (todoTool) Spec() Spec {
	return spec("todo", "Read or update your task list for this session. Without todos it returns "+
		"the list; with todos it replaces the list, or updates items by id when merge is true.", `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "minLength": 1},
          "content": {"type": "string", "description": "What to do (required unless merging)."},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"], "description": "Required unless merging."}
        },
        "required": ["id"],
        "additionalProperties": false
      }
    },
    "merge": {"type": "boolean", "description": "Update items by id instead of replacing the list (default false)."}
  },
  "additionalProperties": false
}`)
}

type todoArgs struct {
	Todos *[]TodoItem `json:"todos"`
	Merge bool        `json:"merge"`
}

func (todoTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a todoArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	list := env.Todos
	if list == nil {
		list = &TodoList{}
	}
	if a.Todos != nil {
		if err := validTodos(*a.Todos, a.Merge); err != nil {
			return failf("invalid arguments: %v", err), nil
		}
		if a.Merge {
			list.Merge(*a.Todos)
		} else {
			list.Replace(*a.Todos)
		}
	}
	return jsonResult(struct {
		Todos []TodoItem `json:"todos"`
	}{list.Items()})
}

// validTodos checks ids (present, unique) and statuses; a merge may leave
// content and status empty to keep them.
func validTodos(items []TodoItem, merge bool) error {
	seen := map[string]bool{}
	for i, it := range items {
		switch {
		case it.ID == "":
			return fmt.Errorf("todo %d has no id", i+1)
		case seen[it.ID]:
			return fmt.Errorf("todo id %q appears twice", it.ID)
		case it.Status == "" && merge:
		case it.Status != TodoPending && it.Status != TodoInProgress && it.Status != TodoCompleted:
			return fmt.Errorf("todo %q has status %q; want pending, in_progress or completed", it.ID, it.Status)
		}
		seen[it.ID] = true
	}
	return nil
}
