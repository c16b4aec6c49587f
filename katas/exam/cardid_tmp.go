package exam

import "github.com/kata-mcp/kata/katas"

// Temporary stand-ins until katas/srs lands (merge of branch store).
func itemCardID(kata string, it katas.Item) string { return "item:" + kata + ":" + it.ID }
func trapCardID(kata, table string, t katas.Trap) string {
	return "trap:" + kata + ":" + table + ":" + t.Trap
}
