package cli

import (
	"os"

	"github.com/kata-mcp/kata/internal/locale"
	"github.com/kata-mcp/kata/internal/testenv"
)

// Go references built by these tests (kata validate --references, the end-to-end runs) use the
// test's own Go build cache (testenv.UseGoBuildCache). The tests read kata in English whatever
// the machine's locale is, unless a test sets its own (locale.EnvLang first).
func init() {
	testenv.UseGoBuildCache()
	os.Setenv(locale.EnvLang, locale.English)
}
