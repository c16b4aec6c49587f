// Package katas is the packet model: it finds kata packets in a file system (a folder holding
// packet.json), parses and validates them — the manifest and the graded contract, the five
// layers (knowledge, prompts, examples, agents, templates), exam items, trap tables, the task
// and its steps, the hidden fixtures (server fixtures, client scenarios, config rules), the
// protocol shims and the locale twins — and serves them as a Library that keeps at most one
// layer resident at a time. Every problem it finds is a *ParseError naming the file and line.
// It runs no learner code and keeps no state: grading is grader's job, progress is
// internal/progress's. The packet format is docs/packets.md.
package katas
