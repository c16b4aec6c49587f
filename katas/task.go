package katas

import (
	"strconv"
	"strings"
)

// Task is the practical task: an introduction and numbered steps. A step's number is the
// task_id graded tests report (docs/grading.md#json-report).
type Task struct {
	Title string
	// Intro is the Markdown before the first step.
	Intro string
	Steps []Step
	// Markdown is the whole task.md, for TASK.md in a workspace and for rendering.
	Markdown string
}

// Step is one "## N. Title" section of task.md.
type Step struct {
	Number   int
	Title    string
	Markdown string
	Line     int
}

// Step returns the step numbered n, and whether it exists.
func (t Task) Step(n int) (Step, bool) {
	for _, s := range t.Steps {
		if s.Number == n {
			return s, true
		}
	}
	return Step{}, false
}

// ParseTask reads task.md: a level-1 title, an introduction, then "## N. Title" steps numbered
// 1, 2, 3 … in order. A heading without a number or out of sequence is a problem with its
// line; every problem is reported (the error, when not nil, is Problems).
func ParseTask(file string, src []byte) (Task, error) {
	return collect(func(ps *Problems) Task { return parseTask(file, src, ps) })
}

func parseTask(file string, src []byte, ps *Problems) Task {
	src = cleanMarkdown(src)
	doc := parseMarkdown(src)
	intro, secs := sections(doc, src)
	t := Task{Markdown: string(src)}
	for _, b := range intro {
		if lvl, txt, ok := headingLevelText(b, src); ok && lvl == 1 && t.Title == "" {
			t.Title = txt
		}
	}
	if t.Title == "" {
		ps.add(file, 1, "task.md needs a level-1 title")
	}
	introEnd := len(src)
	if len(secs) > 0 {
		introEnd = nodeStart(secs[0].heading, src)
	}
	if len(intro) > 0 {
		if off := FirstOffset(intro[0]); off >= 0 {
			start := lineEnd(src, off)
			if start < introEnd {
				t.Intro = strings.TrimSpace(string(src[start:introEnd]))
			}
		}
	}
	for i, s := range secs {
		txt := plainText(s.heading, src)
		line := lineOf(src, FirstOffset(s.heading))
		num, title, ok := strings.Cut(txt, ".")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if !ok || err != nil {
			ps.add(file, line, "a step heading must read '## N. Title', found %q", txt)
			continue
		}
		if n != i+1 {
			ps.add(file, line, "step %d is out of sequence; expected %d", n, i+1)
		}
		body := ""
		if off := FirstOffset(s.heading); off >= 0 && lineEnd(src, off) <= s.end {
			body = string(src[lineEnd(src, off):s.end])
		}
		t.Steps = append(t.Steps, Step{Number: n, Title: strings.TrimSpace(title), Markdown: strings.TrimSpace(body), Line: line})
	}
	if len(secs) == 0 {
		ps.add(file, 1, "task.md has no steps ('## 1. Title')")
	}
	return t
}
