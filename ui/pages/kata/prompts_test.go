package kata

import "testing"

func TestParsePrompt(t *testing.T) {
	p := parsePrompt("01-x.md", "# Review it\n\nIntro.\n\n```text\nYou are a reviewer.\nBe brief.\n```\n\nMore.\n")
	if p.title != "Review it" || p.text != "You are a reviewer.\nBe brief." {
		t.Errorf("%+v", p)
	}
	p = parsePrompt("dir/02-plain.md", "Just text.")
	if p.title != "02-plain" || p.text != "Just text." {
		t.Errorf("%+v", p)
	}
}
