package cli

import (
	"os"

	"github.com/kata-mcp/kata/internal/locale"
	"github.com/kata-mcp/kata/internal/testenv"
)

// Go references built by these tests (kata validate --references, the end-to-end runs) use the
// test's own Go build cache (testenv.UseGoBuildCache). The tests read kata in English whatever
// the machine's locale is, unless a test sets its own (locale.EnvLang first). The packet index
// the commands cache (katas.DefaultIndexCache) goes to a folder of the test run's, not the
// user's cache.
func init() {
	testenv.UseGoBuildCache()
	os.Setenv(locale.EnvLang, locale.English)
	if dir, err := os.MkdirTemp("", "kata-cli-test-cache-"); err == nil {
		os.Setenv("XDG_CACHE_HOME", dir)
	}
}
