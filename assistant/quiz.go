package assistant

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
)

// quizItemArgs are quiz_item's arguments.
type quizItemArgs struct {
	Kata string `json:"kata" jsonschema:"the kata's id, as list_katas gives it"`
	Item string `json:"item,omitempty" jsonschema:"the item's id, such as se-01; leave it out for an item drawn at random"`
	Seed *int64 `json:"seed,omitempty" jsonschema:"repeats a draw: the same seed gives the same item and the same option order (quiz_item's seeds are below 2^53, exact in every JSON reader)"`
}

// QuizItem is quiz_item's result: one exam item without its key or rationales.
type QuizItem struct {
	Kata string `json:"kata"`
	// Item is the item's id, for check_answer.
	Item  string `json:"item"`
	Title string `json:"title"`
	// Scenario is the certification scenario the item is set in.
	Scenario string `json:"scenario"`
	// Stem is the question, as Markdown.
	Stem string `json:"stem"`
	// Choose is how many options the answer picks: 1 for a single-answer item.
	Choose int `json:"choose"`
	// Options in display order (shuffled), each with its stable id.
	Options []QuizOption `json:"options"`
	// Seed repeats this draw and order. A seed quiz_item draws is in [0, MaxSeed], so that a
	// client that reads JSON numbers as doubles (JavaScript) passes it back unchanged.
	Seed int64 `json:"seed"`
	// Items counts the kata's items.
	Items int `json:"items"`
}

// QuizOption is one option as shown: its id and text, never whether it is a key.
type QuizOption struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// MaxSeed is the largest seed quiz_item draws: 2^53 - 1, the largest integer a JSON reader
// that holds numbers as IEEE doubles (JavaScript's JSON.parse) reads exactly.
const MaxSeed = 1<<53 - 1

// quizItem is the quiz_item tool.
func (s *server) quizItem(_ context.Context, _ *mcp.CallToolRequest, in quizItemArgs) (QuizItem, *ToolError) {
	p, terr := s.packet(ToolQuizItem, in.Kata)
	if terr != nil {
		return QuizItem{}, terr
	}
	if len(p.Items) == 0 {
		return QuizItem{}, toolErr(CategoryNotFound, "kata %s has no exam items", p.ID)
	}
	seed := rand.Int64N(MaxSeed + 1)
	if in.Seed != nil {
		seed = *in.Seed
	}
	var q exam.Question
	if in.Item == "" {
		q = exam.Draw([]*katas.Packet{p}, 1, seed)[0]
	} else {
		if _, terr := item(p, in.Item); terr != nil {
			return QuizItem{}, terr
		}
		qs, err := exam.Rebuild([]*katas.Packet{p}, []string{exam.Ref(p.ID, in.Item)}, seed)
		if err != nil {
			return QuizItem{}, toolErr(CategoryInternal, "%v", err)
		}
		q = qs[0]
	}
	out := QuizItem{Kata: p.ID, Item: q.Item.ID, Title: q.Item.Title, Scenario: q.Item.Scenario, Stem: q.Item.Stem,
		Choose: q.Item.Choose, Seed: seed, Items: len(p.Items), Options: []QuizOption{}}
	for _, o := range q.Options() {
		out.Options = append(out.Options, QuizOption{ID: o.ID, Text: o.Text})
	}
	return out, nil
}

// item returns the item of p with the given id, or a not_found error listing the ids.
func item(p *katas.Packet, id string) (katas.Item, *ToolError) {
	for _, it := range p.Items {
		if it.ID == id {
			return it, nil
		}
	}
	ids := make([]string, len(p.Items))
	for i, it := range p.Items {
		ids[i] = it.ID
	}
	return katas.Item{}, toolErr(CategoryNotFound, "kata %s has no item %q (its items: %s)", p.ID, id, orNone(ids))
}

// checkAnswerArgs are check_answer's arguments.
type checkAnswerArgs struct {
	Kata   string   `json:"kata" jsonschema:"the kata's id"`
	Item   string   `json:"item" jsonschema:"the item's id, as quiz_item gave it"`
	Answer []string `json:"answer" jsonschema:"the ids of the chosen options, as many as the item's choose"`
}

// AnswerCheck is check_answer's result: the verdict, the key and every rationale.
type AnswerCheck struct {
	Kata string `json:"kata"`
	Item string `json:"item"`
	// Correct is true when exactly the keyed options were chosen.
	Correct bool `json:"correct"`
	// Chosen are the answer's option ids, sorted.
	Chosen []string `json:"chosen"`
	// Keys are the keyed option ids, sorted.
	Keys   []string `json:"keys"`
	Choose int      `json:"choose"`
	// Options in written order, each with whether it is a key, whether it was chosen and why
	// it is right or wrong.
	Options []CheckedOption `json:"options"`
}

// CheckedOption is one option with its key and rationale.
type CheckedOption struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	Key       bool   `json:"key"`
	Chosen    bool   `json:"chosen"`
	Rationale string `json:"rationale"`
}

// checkAnswer is the check_answer tool.
func (s *server) checkAnswer(_ context.Context, _ *mcp.CallToolRequest, in checkAnswerArgs) (AnswerCheck, *ToolError) {
	p, terr := s.packet(ToolCheckAnswer, in.Kata)
	if terr != nil {
		return AnswerCheck{}, terr
	}
	if in.Item == "" {
		return AnswerCheck{}, toolErr(CategoryValidation, "argument item of %s is required: the item's id, as quiz_item gave it", ToolCheckAnswer)
	}
	it, terr := item(p, in.Item)
	if terr != nil {
		return AnswerCheck{}, terr
	}
	var ids []string
	for _, o := range it.Options {
		ids = append(ids, o.ID)
	}
	if len(in.Answer) == 0 {
		return AnswerCheck{}, toolErr(CategoryValidation, "argument answer of %s is required: the ids of the chosen options (item %s has %s; choose %d)",
			ToolCheckAnswer, it.ID, strings.Join(ids, ", "), it.Choose)
	}
	chosen := slices.Clone(in.Answer)
	slices.Sort(chosen)
	for i, c := range chosen {
		if !slices.Contains(ids, c) {
			return AnswerCheck{}, toolErr(CategoryValidation, "argument answer of %s: item %s has no option %q (its options: %s)", ToolCheckAnswer, it.ID, c, strings.Join(ids, ", "))
		}
		if i > 0 && chosen[i-1] == c {
			return AnswerCheck{}, toolErr(CategoryValidation, "argument answer of %s names option %q twice", ToolCheckAnswer, c)
		}
	}
	keys := it.Keys()
	slices.Sort(keys)
	out := AnswerCheck{Kata: p.ID, Item: it.ID, Correct: exam.Correct(it, chosen), Chosen: chosen, Keys: keys, Choose: it.Choose}
	for _, o := range it.Options {
		out.Options = append(out.Options, CheckedOption{ID: o.ID, Text: o.Text, Key: o.Key, Chosen: slices.Contains(chosen, o.ID), Rationale: o.Rationale})
	}
	return out, nil
}
