// Package tabs draws a row of numbered tabs, the active one highlighted.
package tabs

import (
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/ui/common"
)

// View draws labels as tabs numbered from 1, active highlighted, cut to width.
func View(st *common.Styles, labels []string, active, width int) string {
	tabs := make([]string, len(labels))
	for i, l := range labels {
		label := strconv.Itoa(i+1) + " " + l
		if i == active {
			tabs[i] = st.TabOn.Render(label)
		} else {
			tabs[i] = st.TabOff.Render(label)
		}
	}
	return common.Truncate(strings.Join(tabs, " "), width)
}
