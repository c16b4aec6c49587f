package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/docs"
	"github.com/kata-mcp/kata/internal/i18n"
)

// newDocsCmd is `kata docs [PAGE[#SECTION]]`: the documentation pages embedded in the binary,
// so that every link kata prints (docs/grading.md#seed, the link of every rule)
// resolves for a user who has only the binary.
func newDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "docs [PAGE[#SECTION]] [SECTION]",
		Short: "Print kata's documentation, a page or one section (the links kata prints, such as docs/grading.md#seed)",
		Long: "kata docs lists the documentation pages built into kata; kata docs PAGE prints one (grading, packets,\n" +
			"assistant, class, workshop, i18n, glossary); kata docs PAGE#SECTION, or kata docs PAGE SECTION, prints one\n" +
			"section. A link kata prints works as it is: kata docs docs/grading.md#rule-category.",
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, loc := cmd.OutOrStdout(), i18n.New(userLocale(cmd))
			if len(args) == 0 {
				for _, p := range docs.Pages() {
					fmt.Fprintf(out, "%-10s %s\n", p.Name, p.Title)
				}
				fmt.Fprintln(out)
				fmt.Fprintln(out, loc.T("out.docs_usage"))
				return nil
			}
			ref, anchor := docs.Split(args[0])
			if len(args) == 2 {
				anchor = strings.TrimPrefix(args[1], "#")
			}
			p, ok := docs.Get(ref)
			if !ok {
				return i18n.Err("out.unknown_doc", "Page", ref, "Known", strings.Join(docs.Names(), ", "))
			}
			text := p.Markdown
			if anchor != "" {
				var err error
				if text, err = docs.Section(p, anchor); err != nil {
					return i18n.Err("out.unknown_doc_section", "Page", p.Name, "Anchor", anchor)
				}
			}
			if isTerminal(out) { // rendered as kata show renders a layer; piped, the Markdown as it is
				return showRendered(out, docs.WithoutAnchors(text))
			}
			_, err := fmt.Fprint(out, text)
			return err
		},
	}
}
