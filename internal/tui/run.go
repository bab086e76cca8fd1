package tui

import (
	"context"
	"errors"
	"io"

	tea "charm.land/bubbletea/v2"
)

// Run shows the UI on in/out until the user leaves or ctx ends. The
// connection is closed on return; the session and its turn go on.
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	m := New(opts)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	final, err := p.Run()
	if fm, ok := final.(*Model); ok {
		fm.Close()
		if fm.Err() != nil {
			return fm.Err()
		}
	} else {
		m.Close()
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
