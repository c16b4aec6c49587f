package progress

import (
	"database/sql"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/srs"
)

// ItemReport is the classical item analysis of the learner's own answers (kata stats
// --items): for each exam item answered, its p-value and how often each option was chosen —
// the figures an exam editor reads to find an item that is too easy, too hard, or has a
// distractor nobody picks (or one that draws more than the key).
type ItemReport struct {
	// Items are the answered items of the packets, in packet order, then written order.
	Items []ItemStats `json:"items"`
	// Unmatched counts answers to items (or item versions) the packets no longer have.
	Unmatched int `json:"unmatched_answers"`
}

// ItemStats are one item's figures over the answers to its current version (its card id,
// srs.ItemCardID: an edited stem, option or key is a new version).
type ItemStats struct {
	Kata   string `json:"kata"`
	ItemID string `json:"item_id"`
	Title  string `json:"title"`
	// Choose is how many options the item asks for.
	Choose int `json:"choose"`
	// Answered counts the scored answers (practice, reviews, submitted exams); Correct those
	// that chose exactly the keys.
	Answered int `json:"answered"`
	Correct  int `json:"correct"`
	// PValue is Correct / Answered: the item's difficulty index, 0 to 1 (higher is easier).
	PValue float64 `json:"p_value"`
	// Options are the item's options in written order with how often each was chosen.
	Options []OptionStats `json:"options"`
	// EarlierVersions counts answers to earlier versions of the item, left out of the figures
	// because their options differed.
	EarlierVersions int `json:"earlier_versions"`
}

// OptionStats is how often one option was chosen.
type OptionStats struct {
	// ID is the option's stable id ("a", "b", … in written order); Text its text.
	ID   string `json:"id"`
	Text string `json:"text"`
	// Key marks a keyed option; the others are distractors.
	Key bool `json:"key"`
	// Chosen counts the answers that chose it; Share is Chosen / Answered.
	Chosen int     `json:"chosen"`
	Share  float64 `json:"share"`
}

// ItemStats reads every scored answer to an exam item (not trap drills, not the unsubmitted
// answers of an open exam) and lines them up with the packets' items: the answers to an
// item's current version give its p-value and option counts; answers to an earlier version
// are only counted. Items nobody answered are left out.
func (s *Store) ItemStats(packets []*katas.Packet) (ItemReport, error) {
	type tally struct {
		answered, correct int
		chosen            map[string]int
	}
	byCard := map[string]*tally{}
	byItem := map[string]int{} // "<kata>/<item id>" → answers to any version
	err := s.read("computing item statistics", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT kata, item_id, card_id, chosen, correct FROM answers WHERE card_id LIKE ?`, srs.KindItem+":%")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var kata, item, card, chosen string
			var correct bool
			if err := rows.Scan(&kata, &item, &card, &chosen, &correct); err != nil {
				return err
			}
			ids, err := parseList("answers.chosen", chosen)
			if err != nil {
				return err
			}
			t := byCard[card]
			if t == nil {
				t = &tally{chosen: map[string]int{}}
				byCard[card] = t
			}
			t.answered++
			if correct {
				t.correct++
			}
			for _, id := range ids {
				t.chosen[id]++
			}
			byItem[kata+"/"+item]++
		}
		return rows.Err()
	})
	if err != nil {
		return ItemReport{}, err
	}
	rep := ItemReport{Items: []ItemStats{}}
	matched := 0
	for _, p := range packets {
		for _, it := range p.Items {
			all := byItem[p.ID+"/"+it.ID]
			if all == 0 {
				continue
			}
			st := ItemStats{Kata: p.ID, ItemID: it.ID, Title: it.Title, Choose: it.Choose, Options: []OptionStats{}}
			if t := byCard[srs.ItemCardID(p.ID, it)]; t != nil {
				st.Answered, st.Correct = t.answered, t.correct
				st.PValue = float64(t.correct) / float64(t.answered)
				for _, o := range it.Options {
					st.Options = append(st.Options, OptionStats{ID: o.ID, Text: o.Text, Key: o.Key,
						Chosen: t.chosen[o.ID], Share: float64(t.chosen[o.ID]) / float64(t.answered)})
				}
			}
			st.EarlierVersions = all - st.Answered
			matched += all
			rep.Items = append(rep.Items, st)
		}
	}
	for _, n := range byItem {
		rep.Unmatched += n
	}
	rep.Unmatched -= matched
	return rep, nil
}

// WriteText writes the report for a terminal: one block per item with its p-value and a line
// per option (the key marked *, the share of answers that chose it), and a closing note on what
// the figures mean. Lines fit 80 columns.
func (r ItemReport) WriteText(w io.Writer) { r.WriteTextIn(w, nil) }

// WriteTextIn is WriteText in loc's language (nil: English); ids, titles and options stay as
// they are.
func (r ItemReport) WriteTextIn(w io.Writer, loc *i18n.Localizer) {
	if len(r.Items) == 0 {
		fmt.Fprintln(w, loc.T("items.none"))
		r.writeUnmatched(w, loc)
		return
	}
	kata := ""
	for _, it := range r.Items {
		if it.Kata != kata {
			kata = it.Kata
			fmt.Fprintf(w, "%s\n", kata)
		}
		fmt.Fprintf(w, "  %s  %s\n", it.ItemID, clip(it.Title, 64))
		if it.Answered == 0 {
			fmt.Fprintf(w, "      %s\n", loc.T("items.earlier_only", "Answers", loc.N("count.answer", it.EarlierVersions)))
			continue
		}
		line := "      " + loc.T("items.p", "P", fmt.Sprintf("%.2f", it.PValue), "Correct", it.Correct, "Answers", loc.N("count.answer", it.Answered))
		if it.Choose > 1 {
			line += ", " + loc.T("items.choose", "N", it.Choose)
		}
		if it.EarlierVersions > 0 {
			line += "; " + loc.T("items.earlier", "N", it.EarlierVersions)
		}
		fmt.Fprintln(w, line)
		for _, o := range it.Options {
			mark := " "
			if o.Key {
				mark = "*"
			}
			fmt.Fprintf(w, "    %s %s %3.0f%%  %s\n", mark, o.ID, 100*o.Share, clip(o.Text, 62))
		}
	}
	fmt.Fprintln(w, "\n"+loc.T("items.note"))
	r.writeUnmatched(w, loc)
}

func (r ItemReport) writeUnmatched(w io.Writer, loc *i18n.Localizer) {
	if r.Unmatched > 0 {
		fmt.Fprintln(w, loc.T("items.unmatched", "Answers", loc.N("count.answer", r.Unmatched)))
	}
}

// clip shortens s to n characters, ending in "…" when cut; code-span backticks are dropped.
func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "`", "")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
