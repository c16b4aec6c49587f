// Package tabs draws a row of numbered tabs, the active one highlighted.
package tabs

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/kata-mcp/kata/ui/common"
)

// View draws labels as tabs numbered from 1, active highlighted. When the row is wider than
// width the inactive tabs lose their padding, then their labels (keeping their numbers), so
// every tab stays and the active one keeps its name; only then is the row cut.
func View(st *common.Styles, labels []string, active, width int) string {
	row := func(pad bool, names bool) string {
		tabs := make([]string, len(labels))
		for i, l := range labels {
			label := strconv.Itoa(i + 1)
			if names || i == active {
				label += " " + l
			}
			switch {
			case i == active:
				tabs[i] = st.TabOn.Render(label)
			case pad:
				tabs[i] = st.TabOff.Render(label)
			default:
				tabs[i] = st.TabOff.Padding(0).Render(label)
			}
		}
		return strings.Join(tabs, " ")
	}
	for _, r := range []string{row(true, true), row(false, true), row(false, false)} {
		if lipgloss.Width(r) <= width {
			return r
		}
	}
	return common.Truncate(row(false, false), width)
}
