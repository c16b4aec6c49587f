package grader

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

// BenchmarkToolCallRoundTrip reports the cost of one graded tools/call: the grader's MCP
// client and stdout filter, the learner's Python server (correct reference) and one request
// to the grader's Orders API. It bounds the grader's own overhead per call from above.
//
//	go test ./grader -run '^$' -bench ToolCallRoundTrip
func BenchmarkToolCallRoundTrip(b *testing.B) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		b.Fatal(err)
	}
	p, _ := lib.Get("mcp-structured-errors")
	dir := b.TempDir()
	if err := p.Init(dir, "python"); err != nil {
		b.Fatal(err)
	}
	copyFile(b, filepath.Join("..", "testdata", "references", p.ID, "python", "correct", "server.py"), filepath.Join(dir, "server.py"))
	api, err := startOrdersAPI("tok")
	if err != nil {
		b.Fatal(err)
	}
	defer api.close()
	env := sandbox.PlainEnv(map[string]string{"ORDERS_API_URL": api.URL, "ORDERS_API_TOKEN": "tok", "ORDERS_API_TIMEOUT_SECONDS": "5"})
	conn, err := launchServer(context.Background(), launchSpec{dir: dir, command: "python3", args: []string{"server.py"}, env: env}, &violationLog{})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.close()
	d := newDrawer(1)
	f := p.Fixtures["server"].Fixtures[0] // lookup-ok
	dr := d.draw(f, caseSpec{})
	api.setOrder(dr.id, dr.beh)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		res, err := conn.session.CallTool(context.Background(), &mcp.CallToolParams{Name: f.Tool, Arguments: dr.args})
		if err != nil || res.IsError {
			b.Fatalf("call failed: %v %+v", err, res)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/call")
}
