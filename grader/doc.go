// Package grader grades one learner workspace against its kata's hidden fixtures: it reads
// kata.json and .mcp.json, checks the config rules, starts a fake Orders API on loopback,
// launches the learner's MCP server in the sandbox (grader/sandbox), calls its tools with the
// official MCP Go SDK and checks every result against the kata's typed-error contract
// (contract.go), then drives the learner's client on a virtual clock against the policy's
// rules (client.go, policy.go). The result is a Report — results.json v3, with each test's
// status, step, broken rule ids and message — that the text, JSON and JUnit writers print.
// A seed draws values (ids, amounts, delays), never which fixtures run. The graded interface
// is docs/grading.md. The package keeps no state and links no database: keeping a grade is
// internal/record's job.
package grader
