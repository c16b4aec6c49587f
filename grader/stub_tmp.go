package grader

import (
	"context"

	"github.com/kata-mcp/kata/katas"
)

func grade(ctx context.Context, lib *katas.Library, dir string, opts Options) *Report {
	return &Report{Version: 3, Status: StatusError, Message: "not yet"}
}
