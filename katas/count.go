package katas

import "fmt"

// Count is "1 kata" or "3 katas": n with the singular or the plural noun. Every count the CLI,
// the reports and the UI print goes through it, so plural rules have one home.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
