package assistant

import (
	"context"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/grader"
)

// gradeArgs are grade_workspace's arguments.
type gradeArgs struct {
	Workspace string `json:"workspace" jsonschema:"the workspace folder, best as an absolute path; a relative one is taken from the folder kata mcp runs in"`
	Seed      *int64 `json:"seed,omitempty" jsonschema:"repeats a run's random draws: the report of every run gives its seed"`
}

// gradeWorkspace is the grade_workspace tool. Before grading it checks the folder: one that
// does not exist is not_found, a file or a folder without kata.json is validation. A folder
// already being graded is transient, and so is a grade interrupted by the request's
// cancellation or the server's shutdown. A workspace the grader cannot grade (a broken
// .mcp.json, a server that does not start) is no tool failure: its report has status "error"
// and says why.
func (s *server) gradeWorkspace(ctx context.Context, req *mcp.CallToolRequest, in gradeArgs) (grader.Report, *ToolError) {
	if in.Workspace == "" {
		return grader.Report{}, toolErr(CategoryValidation, "argument workspace of %s is required: the folder `kata init` made, holding kata.json", ToolGradeWorkspace)
	}
	dir, terr := s.workspace(in.Workspace)
	if terr != nil {
		return grader.Report{}, terr
	}
	if !s.startGrading(dir) {
		return grader.Report{}, toolErr(CategoryTransient, "%s is being graded by an earlier call; call %s again when that one has returned", dir, ToolGradeWorkspace)
	}
	defer s.doneGrading(dir)
	opts := grader.Options{}
	if in.Seed != nil {
		opts.Seed, opts.SeedSet = *in.Seed, true
	}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		opts.OnEvent = func(e grader.Event) {
			if e.Kind == grader.EventTestFinished {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
					Progress: float64(e.Done), Total: float64(e.Total), Message: e.Test}) // best effort: a lost notice loses nothing
			}
		}
	}
	rep := grader.Grade(ctx, s.lib, dir, opts)
	if ctx.Err() != nil {
		return grader.Report{}, toolErr(CategoryTransient, "the grade of %s was interrupted before it finished (the call was cancelled or the server is stopping); nothing was recorded, call %s again", dir, ToolGradeWorkspace)
	}
	if s.opts.OnGrade != nil {
		s.opts.OnGrade(rep)
	}
	return *rep, nil
}

// workspace resolves and checks a workspace argument.
func (s *server) workspace(arg string) (string, *ToolError) {
	dir := arg
	if !filepath.IsAbs(dir) {
		base := s.opts.WorkDir
		if base == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", toolErr(CategoryInternal, "cannot resolve the relative path %s: %v; pass an absolute path", arg, err)
			}
			base = wd
		}
		dir = filepath.Join(base, dir)
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return "", toolErr(CategoryNotFound, "there is no folder %s (from the argument %q); create a workspace with `kata init KATA DIR` or pass the path of an existing one", dir, arg)
	case err != nil:
		return "", toolErr(CategoryValidation, "cannot read the workspace %s: %v", dir, err)
	case !st.IsDir():
		return "", toolErr(CategoryValidation, "%s is a file; the workspace is the folder that holds kata.json", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "kata.json")); err != nil {
		return "", toolErr(CategoryValidation, "%s is not a kata workspace: it has no kata.json (`kata init KATA DIR` writes one)", dir)
	}
	return dir, nil
}

// startGrading marks dir as being graded; false when it already is.
func (s *server) startGrading(dir string) bool {
	s.gradeMu.Lock()
	defer s.gradeMu.Unlock()
	if s.grading[dir] {
		return false
	}
	s.grading[dir] = true
	return true
}

// doneGrading clears the mark of startGrading.
func (s *server) doneGrading(dir string) {
	s.gradeMu.Lock()
	defer s.gradeMu.Unlock()
	delete(s.grading, dir)
}
