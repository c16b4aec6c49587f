package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/spf13/cobra"
)

func newListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the kata packets",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			var rows []packetSummary
			for _, p := range lib.Entries() { // manifests and counts: no packet is parsed
				c := p.Counts
				rows = append(rows, packetSummary{
					ID: p.ID, Title: p.Title, Version: p.Version, Summary: p.Summary, Source: p.Source,
					Layers: p.Layers, Items: c.Items, Traps: c.Traps, TrapTables: c.TrapTables, TaskSteps: c.TaskSteps,
					Fixtures: c.Fixtures, Graded: p.Graded, Languages: p.Languages,
				})
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			loc := i18n.New(userLocale(cmd))
			// The text is the reader's: titles as packet.json translates them (--json above stays
			// English in every locale).
			for i, e := range localized(cmd, lib).Entries() {
				rows[i].Title = e.Title
			}
			// The id column is as wide as the longest id (at least 24), so titles line up.
			w := 24
			for _, r := range rows {
				w = max(w, len(r.ID))
			}
			for _, r := range rows {
				fmt.Fprintf(out, "%-*s %s (v%s)\n", w, r.ID, r.Title, r.Version)
				fmt.Fprintf(out, "%-*s %s\n", w, "", loc.T("list.line", "Layers", strings.Join(r.Layers, ", "), "Items", loc.N("count.item", r.Items),
					"Traps", loc.T("list.traps_in", "Traps", loc.N("count.trap", r.Traps), "Tables", loc.N("count.in_table", r.TrapTables)),
					"Steps", loc.N("count.step", r.TaskSteps), "Fixtures", loc.N("count.fixture", r.Fixtures), "Graded", strings.Join(r.Graded, ", ")))
				fmt.Fprintf(out, "%-*s %s\n", w, "", loc.T("list.source", "Source", sourceName(loc, r.Source)))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: id, title, source, layers, items, traps, fixtures")
	return cmd
}

// sourceName is where a packet comes from as the reader reads it: "embedded" in loc's words
// (the JSON keeps "embedded"), a folder as it is.
func sourceName(loc *i18n.Localizer, source string) string {
	if source == "embedded" {
		return loc.T("common.embedded")
	}
	return source
}
