package class

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
)

// mustContain fails for each of want that s lacks.
func mustContain(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// TestWriteTextInSpanishAndRussian: the summary's own words are the reader's language; rule
// ids, learner names and the grader's messages stay as they are.
func TestWriteTextInSpanishAndRussian(t *testing.T) {
	r := classReport(t, BuildOptions{})
	for lang, want := range map[string][]string{
		"es": {"kata class grade · 4 participantes · ", "semilla 42 (repite la evaluación con --seed 42)", "  participante  tests", "48/48 superados",
			"no se puede evaluar: kata.json is missing", "Las reglas que más incumple la clase (de 3 participantes evaluados)",
			"1. category · 2 participantes, ", "p. ej., bob, ", "2. retry-after · 1 participante, ", "No se pueden evaluar (1 participante)",
			"4 participantes — evaluados ahora: 4, sin cambios desde su resultado guardado: 0, no evaluables: 1 · "},
		"ru": {"kata class grade · 4 участника · ", "зерно 42 (повторить: --seed 42)", "  участник  тесты", "пройдено 48/48",
			"не удалось проверить: kata.json is missing", "Правила, которые класс нарушает чаще всего (из 3 проверенных участников)",
			"1. category · 2 участника, ", "например, bob, ", "2. retry-after · 1 участник, ", "Не удалось проверить (1 участник)",
			"4 участника: проверено сейчас — 4, без изменений с сохранённого результата — 0, не удалось проверить — 1 · "},
	} {
		var b bytes.Buffer
		WriteText(&b, r, i18n.New(lang))
		mustContain(t, lang+" summary", b.String(), want...)
		if strings.Contains(b.String(), "learner") || strings.Contains(b.String(), "graded") {
			t.Errorf("the %s summary still has English words:\n%s", lang, b.String())
		}
	}
}

// syntheticClass is a report of n learners who all pass but break one rule, graded n at a time.
func syntheticClass(n int) *Report {
	r := &Report{Seed: 7, Gradable: n, Graded: n, Jobs: n, Rules: []RuleCount{{Rule: grader.RuleCategory, Learners: n, Tests: n,
		ExampleLearner: "l1", ExampleTest: "t", Example: "errorCategory was \"transient\""}}}
	for i := range n {
		r.Learners = append(r.Learners, LearnerRow{Name: fmt.Sprintf("l%d", i+1), Status: grader.StatusFail, Passed: 1, Tests: 2})
	}
	return r
}

// TestWriteTextRussianPlurals: 1, 2 and 5 learners take the CLDR forms one, few and many,
// in the nominative ("2 участника") and in the genitive after «из» ("из 2 проверенных участников").
func TestWriteTextRussianPlurals(t *testing.T) {
	ru := i18n.New("ru")
	for n, want := range map[int][]string{
		1: {"kata class grade · 1 участник · ", "(из 1 проверенного участника)", "category · 1 участник, 1 тест", "1 участник: проверено сейчас — 1", "· 1 поток ·"},
		2: {"kata class grade · 2 участника · ", "(из 2 проверенных участников)", "category · 2 участника, 2 теста", "2 участника: проверено сейчас — 2", "· 2 потока ·"},
		5: {"kata class grade · 5 участников · ", "(из 5 проверенных участников)", "category · 5 участников, 5 тестов", "5 участников: проверено сейчас — 5", "· 5 потоков ·"},
	} {
		var b bytes.Buffer
		WriteText(&b, syntheticClass(n), ru)
		mustContain(t, fmt.Sprintf("the summary of %d learners", n), b.String(), want...)
	}
	// Beyond TopRules, the rest are counted too: 12 rules leave "ещё 2 правила".
	r := syntheticClass(2)
	for i := range TopRules + 1 {
		r.Rules = append(r.Rules, RuleCount{Rule: grader.RuleID(fmt.Sprintf("rule-%d", i)), Learners: 1, Tests: 1})
	}
	var b bytes.Buffer
	WriteText(&b, r, ru)
	mustContain(t, "a summary of 12 rules", b.String(), "  … и ещё 2 правила (в HTML-отчёте есть все)")
	b.Reset()
	WriteText(&b, r, nil)
	mustContain(t, "an English summary of 12 rules", b.String(), "  … and 2 rules more (the HTML report lists every one)")
}

// TestProgressInRussian: the progress lines a log keeps, and the bar, in Russian.
func TestProgressInRussian(t *testing.T) {
	res := &Result{Learner: Learner{Name: "bob"}, Report: &grader.Report{Status: grader.StatusFail, Points: 3, MaxPoints: 4,
		Tests: []grader.TestResult{{Status: grader.StatusPass}, {Status: grader.StatusFail}}}, Duration: 1500 * time.Millisecond}
	var plain bytes.Buffer
	p := NewTicker(&plain, false, i18n.New("ru"))
	p.Event(Event{Kind: EventBegan, Total: 5, Jobs: 2, Seed: 9})
	p.Event(Event{Kind: EventFinished, Learner: res.Learner, Result: res, Done: 1, Total: 5})
	if got, want := plain.String(), "kata class grade: 5 участников, по 2 одновременно, зерно 9 (повторить: --seed 9)\n[1/5] bob: пройдено 1/2 · 3/4 баллов (75 %) · 1.5 с\n"; got != want {
		t.Errorf("plain progress\n%q, want\n%q", got, want)
	}
	var tty bytes.Buffer
	p = NewTicker(&tty, true, i18n.New("es"))
	p.Event(Event{Kind: EventStarted, Learner: res.Learner, Done: 0, Running: 2, Total: 5})
	if !strings.Contains(tty.String(), "] 0/5 · evaluando 2") {
		t.Errorf("terminal progress %q", tty.String())
	}
	res.Reused = true
	if got := Outcome(res, i18n.New("es")); !strings.HasSuffix(got, " (sin cambios desde su resultado guardado)") {
		t.Errorf("a reused outcome in Spanish: %q", got)
	}
}

// TestHTMLReportInRussian: <html lang> names the language, the headings, labels and counts are
// Russian, and the page is still self-contained.
func TestHTMLReportInRussian(t *testing.T) {
	r := classReport(t, BuildOptions{Generated: time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC), PseudonymKey: []byte("k")})
	var b bytes.Buffer
	if err := WriteHTML(&b, r, i18n.New("ru")); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	checkSelfContained(t, html)
	mustContain(t, "the Russian HTML report", html, `<html lang="ru">`, "<h1>Отчёт по классу · ", `<h2 id="heatmap-title">Баллы по шагам задания</h2>`,
		`<h2 id="rules-title">Правила, которые класс нарушает чаще всего</h2>`, `<h2 id="errors-title">Не удалось проверить</h2>`,
		"<span>участника</span>", "<b>1 из 3</b><span>проходят все тесты</span>", "seed 42 (повторить: <code>--seed 42</code>)",
		"создан 2026-05-04 10:00 UTC", "имена заменены псевдонимами", "шаг 1<br>5 б.", "(5 баллов)", "баллов за шаг", "<code>category</code>",
		"не удалось проверить: kata.json is missing", "<footer>Создан командой <code>kata class grade</code>: проверено сейчас — ")
	for _, english := range []string{"Class report", " learners", ">learners<", "pass every test", "Points per task step", "generated", "e.g."} {
		if strings.Contains(html, english) {
			t.Errorf("the Russian HTML report still says %q", english)
		}
	}
	b.Reset()
	WriteHTML(&b, r, nil)
	mustContain(t, "the English HTML report", b.String(), `<html lang="en">`, "<h1>Class report · ", "<b>1 of 3</b><span>pass every test</span>")
}

// TestHTMLSentenceEscapes: a message's fields are escaped, and only a codeSpan becomes markup.
func TestHTMLSentenceEscapes(t *testing.T) {
	got := string(htmlSentence(nil, "class.html.footer", "Command", code("a<b"), "Counts", "<i>x</i> & y"))
	if want := "Written by <code>a&lt;b</code>: &lt;i&gt;x&lt;/i&gt; &amp; y. This file is self-contained: it loads nothing from the network."; got != want {
		t.Errorf("htmlSentence = %q, want %q", got, want)
	}
}

// TestHTMLReportInChromiumRussian opens the Russian report in headless chromium: the DOM keeps
// lang="ru" and the Russian headings, and the page draws its heatmap. KATA_SCREENSHOT_DIR keeps
// the PNG.
func TestHTMLReportInChromiumRussian(t *testing.T) {
	r := classReport(t, BuildOptions{Generated: time.Now()})
	dom, img := inChromium(t, r, i18n.New("ru"), "class-report-ru.png", 0)
	mustContain(t, "the browser's DOM", dom, `<html lang="ru">`, "Отчёт по классу", "Баллы по шагам задания", "Правила, которые класс нарушает чаще всего")
	if n := strings.Count(dom, `<tr class="learner">`); n != len(r.Learners) {
		t.Errorf("the browser's DOM has %d learner rows, want %d", n, len(r.Learners))
	}
	if n := countColor(img, color.RGBA{0x1f, 0x8a, 0x4c, 0xff}); n < 200 {
		t.Errorf("the screenshot has %d pixels of the heatmap's green", n)
	}
}

// TestCannotGradeInTheReadersLanguage: a reason the grader gave as a catalog message is worded
// in the reader's language (the folder still hidden when anonymized); the stored English
// Message, which JSON and CSV carry, does not change.
func TestCannotGradeInTheReadersLanguage(t *testing.T) {
	why := i18n.M("workshop.board.no_quiz")
	dir := "/class/erin"
	b := &Batch{Seed: 1, Results: []Result{{Learner: Learner{Name: "erin", Dir: dir},
		Report: &grader.Report{Status: grader.StatusError, Message: why.English() + " in " + dir, Why: &why, Tests: []grader.TestResult{}}}}}
	r := BuildReport(library(t), b, BuildOptions{})
	var text, html bytes.Buffer
	WriteText(&text, r, i18n.New("ru"))
	WriteHTML(&html, r, i18n.New("ru"))
	for what, s := range map[string]string{"summary": text.String(), "HTML report": html.String()} {
		mustContain(t, "the Russian "+what, s, "не удалось проверить: живой квиз сейчас не идёт")
	}
	if r.Learners[0].Message != "no live quiz is under way: start one first in /class/erin" {
		t.Errorf("the stored message changed: %q", r.Learners[0].Message)
	}
	text.Reset()
	WriteText(&text, r, nil)
	mustContain(t, "the English summary", text.String(), "cannot grade: no live quiz is under way: start one first in /class/erin")
	res := &Result{Learner: Learner{Name: "erin"}, Report: b.Results[0].Report}
	if got := Outcome(res, i18n.New("es")); !strings.HasPrefix(got, "no se puede evaluar: no hay ningún cuestionario en vivo") {
		t.Errorf("a Spanish outcome: %q", got)
	}
}

// TestLocalizeReport: the summary's broken rules, example test names and step titles come from
// the library as the reader reads it; the report itself, which CSV and JSON are written from,
// stays English.
func TestLocalizeReport(t *testing.T) {
	r := classReport(t, BuildOptions{})
	en := *r
	ru := Localize(r, i18n.New("ru"), library(t).Localized("ru"))
	rc, enRC := ru.Rules[0], r.Rules[0]
	if rc.Statement == enRC.Statement || rc.ExampleTest == enRC.ExampleTest || rc.Rule != enRC.Rule {
		t.Errorf("the category rule in Russian: %+v (English %+v)", rc, enRC)
	}
	if ru.Katas[0].Steps[0].Title == r.Katas[0].Steps[0].Title {
		t.Errorf("step 1 is still %q", ru.Katas[0].Steps[0].Title)
	}
	if r.Rules[0].Statement != en.Rules[0].Statement || r.Katas[0].Steps[0].Title != en.Katas[0].Steps[0].Title {
		t.Error("Localize changed the report it was given")
	}
	if Localize(r, i18n.New("en"), library(t)) != r {
		t.Error("English is not the report itself")
	}
	var b bytes.Buffer
	WriteText(&b, ru, i18n.New("ru"))
	mustContain(t, "ru summary", b.String(), rc.Statement, rc.ExampleTest)
}
