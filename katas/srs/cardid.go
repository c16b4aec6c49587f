package srs

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/kata-mcp/kata/katas"
)

// Card kinds, the prefix of a card id.
const (
	KindItem = "item"
	KindTrap = "trap"
)

// contentHash is the first 12 hex digits of SHA-256 over the parts, each length-prefixed so
// that no two different part lists hash the same bytes.
func contentHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// ItemCardID is the card id of an exam item: "item:<kata>:<item id>:<hash>", where hash is the
// first 12 hex digits of SHA-256 over the item's stem, each option's id and text, and the keyed
// option ids. Editing the stem, an option or the key gives a new id, so an edited item starts
// as a new card; editing only a rationale, the title or the scenario keeps the id. An item read
// from a locale twin (Item.English) has its English item's id, so a card is one in every locale.
func ItemCardID(kataID string, it katas.Item) string {
	if it.English != nil { // a translation: the English item's card
		it = *it.English
	}
	parts := []string{it.Stem}
	for _, o := range it.Options {
		parts = append(parts, o.ID, o.Text)
	}
	parts = append(parts, strings.Join(it.Keys(), ","))
	return KindItem + ":" + kataID + ":" + it.ID + ":" + contentHash(parts...)
}

// TrapCardID is the card id of a trap-table row: "trap:<kata>:<hash>", where hash is the
// first 12 hex digits of SHA-256 over the table title, the trap, why it fails and the correct
// pattern. Editing any of those cells gives a new id. A row read from a locale twin
// (Trap.English) has its English row's id, so a card is one in every locale.
func TrapCardID(kataID, table string, t katas.Trap) string {
	if o := t.English; o != nil { // a translation: the English row's card
		table, t = o.Table, o.Row
	}
	return KindTrap + ":" + kataID + ":" + contentHash(table, t.Trap, t.WhyItFails, t.Correct)
}

// KindOf returns the kind ("item" or "trap") a card id starts with, or "" if it has neither
// prefix.
func KindOf(cardID string) string {
	k, _, ok := strings.Cut(cardID, ":")
	if !ok || (k != KindItem && k != KindTrap) {
		return ""
	}
	return k
}
