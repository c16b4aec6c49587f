package grader_test

import (
	"flag"
	"os"
	"testing"

	"github.com/kata-mcp/kata/internal/testenv"
)

// TestMain raises test parallelism: grading tests mostly wait on learner processes and
// deadlines, not on the CPU, so running more of them at once than GOMAXPROCS keeps the suite
// short on a 2-core CI machine. An explicit -parallel flag still wins. Go references build
// with the test's own Go build cache (testenv.UseGoBuildCache), and Python and Node start
// without a version manager's shim (testenv.SkipVersionManagerShims).
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			explicit = true
		}
	})
	if !explicit {
		flag.Set("test.parallel", "8")
	}
	testenv.UseGoBuildCache()
	testenv.SkipVersionManagerShims()
	os.Exit(m.Run())
}
