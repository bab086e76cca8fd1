package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func init() { extraCommands = append(extraCommands, mcpCommand) }

// mcpCommand is `hermes mcp list`: the MCP servers of the running gateway
// (mcp.status). It never starts a daemon.
func mcpCommand(e *env) *cobra.Command {
	var asJSON bool
	list := e.leaf(&cobra.Command{
		Use:   "list",
		Short: "list the MCP servers with their state and tool counts",
		Args:  noArgs,
	}, func(ctx context.Context, _ []string) error { return mcpList(ctx, e, asJSON) })
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return group(&cobra.Command{Use: "mcp", Short: "the gateway's MCP servers"}, list)
}

func mcpList(ctx context.Context, e *env, asJSON bool) error {
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.MCPStatus(ctx)
	if err != nil {
		return callFailure("mcp.status", err)
	}
	if asJSON {
		return writeJSON(e.io.Out, res)
	}
	if len(res.Servers) == 0 {
		fmt.Fprintln(e.io.Out, "no MCP servers (configure them under mcp_servers in config.yaml)")
		return nil
	}
	tw := tabwriter.NewWriter(e.io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tTRANSPORT\tSTATE\tTOOLS\tSESSIONS\tRESTARTS\tERROR")
	for _, s := range res.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", protocol.Visible(s.Name), s.Source, s.Transport, s.State,
			s.Tools, s.Sessions, s.Restarts, oneLine(protocol.Visible(orDash(s.Error)), 60))
	}
	return tw.Flush()
}
