package grader

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGraderLinksNoDatabase: the grader decides verdicts and nothing else; keeping a grade is
// internal/record's job. Everything that grades (kata grade, class grading, the assistant's
// grade_workspace) must not have to link a SQL driver.
func TestGraderLinksNoDatabase(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, driver := range []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/lib/pq", "github.com/mattn/go-sqlite3", "database/sql"} {
			if dep == driver || strings.HasPrefix(dep, driver+"/") && driver != "database/sql" {
				t.Errorf("grader links %s", dep)
			}
		}
	}
}
