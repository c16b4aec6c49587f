package cli

import (
	"os"
	"testing"

	"github.com/kata-mcp/kata/internal/locale"
	"github.com/kata-mcp/kata/internal/testenv"
)

// Go references built by these tests (kata validate --references, the end-to-end runs) use the
// test's own Go build cache (testenv.UseGoBuildCache), and the learner processes of every grade
// start without a version manager's shim (testenv.SkipVersionManagerShims). The tests read kata in English whatever
// the machine's locale is, unless a test sets its own (locale.EnvLang first). The packet index
// the commands cache (katas.DefaultIndexCache) goes to a folder of the test run's, not the
// user's cache.
func init() {
	testenv.UseGoBuildCache()
	testenv.SkipVersionManagerShims()
	os.Setenv(locale.EnvLang, locale.English)
	if dir, err := os.MkdirTemp("", "kata-cli-test-cache-"); err == nil {
		os.Setenv("XDG_CACHE_HOME", dir)
	}
}

// TestMain removes the kata binary the tests built (buildKata) once they are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if kataBuild.dir != "" {
		os.RemoveAll(kataBuild.dir)
	}
	os.Exit(code)
}
