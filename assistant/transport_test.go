package assistant

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession is one kata mcp session over the line transport, driven with raw lines as a
// client that makes mistakes would send them.
type rawSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

// rawConnect serves ms over pipes and returns the client's end.
func rawConnect(t *testing.T, ms *mcp.Server) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() {
		err := serveIO(context.Background(), ms, inR, outW)
		outW.Close()
		s.done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return s
}

// send writes one line (a newline is added).
func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("writing %.80s: %v", line, err)
	}
}

// rawMessage is a message the server wrote, as a client sees it.
type rawMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

// next reads the next line the server writes; it fails the test if none comes within a
// minute (a server that went silent).
func (s *rawSession) next() rawMessage {
	s.t.Helper()
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := s.out.ReadString('\n')
		ch <- result{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			s.t.Fatalf("the server wrote no reply (%v): the session ended", r.err)
		}
		var m rawMessage
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			s.t.Fatalf("the server wrote a line that is not JSON: %v\n%.300s", err, r.line)
		}
		m.line = r.line
		return m
	case <-time.After(time.Minute):
		s.t.Fatal("no reply within a minute")
	}
	return rawMessage{}
}

// initialize opens the session at the given protocol revision and returns the one the server
// answered with.
func (s *rawSession) initialize(version string) string {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := s.next()
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil {
		s.t.Fatalf("initialize at %s: %s", version, m.line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res.ProtocolVersion
}

// ping checks that the session still answers.
func (s *rawSession) ping(id int) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if m := s.next(); string(m.ID) != fmt.Sprint(id) || m.Error != nil || m.Result == nil {
		s.t.Fatalf("ping %d: %s", id, m.line)
	}
}

func newTestServer(t *testing.T) *mcp.Server {
	t.Helper()
	_, ms, err := newServer(library(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestNegotiatesEveryRevision: a client at any revision the server supports gets that revision
// back; one at a revision it does not know gets the newest (MCP, "Lifecycle", version
// negotiation).
func TestNegotiatesEveryRevision(t *testing.T) {
	ms := newTestServer(t)
	for asked, want := range map[string]string{
		"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2024-11-05": "2024-11-05",
		"2024-01-01": "2025-11-25", "not-a-version": "2025-11-25",
	} {
		s := rawConnect(t, ms)
		if got := s.initialize(asked); got != want {
			t.Errorf("a client at %s got %s, want %s", asked, got, want)
		}
		s.ping(1)
	}
}

// TestHostileLinesGetErrorsAndTheSessionGoesOn: every malformed line is answered with the
// JSON-RPC error the specification names, and the next request is answered as if nothing had
// happened. The SDK's own stdio transport ends the session on each of them with no reply.
func TestHostileLinesGetErrorsAndTheSessionGoesOn(t *testing.T) {
	s := rawConnect(t, newTestServer(t))
	s.initialize("2025-03-26")
	for i, c := range []struct {
		line string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, "null"},
		{`not json at all`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, "null"},
		{`[]`, -32600, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null"},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5"},
		{`{"id":6,"method":"ping"}`, -32600, "6"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":"s","method":7}`, -32600, `"s"`},
		{`{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}`, -32600, "8"},
		{`{"jsonrpc":"2.0","id":9}`, -32600, "9"},
		{`42`, -32600, "null"},
		{`"ping"`, -32600, "null"},
		{`null`, -32600, "null"},
		{"\xff\xfe", -32700, "null"},
		{strings.Repeat("[", 100000), -32700, "null"},
		{`{"jsonrpc":"2.0","id":12,"method":"ping","params":` + strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000) + "}", -32700, "null"},
		{`{"jsonrpc":"2.0","id":10,"method":"logging/setLevel","params":{"level":"debug"}}`, -32601, "10"},
	} {
		s.send(c.line)
		m := s.next()
		if m.Error == nil || m.Error.Code != c.code || string(m.ID) != c.id || m.JSONRPC != "2.0" {
			t.Errorf("%.60q: got %s, want error %d with id %s", c.line, strings.TrimSpace(m.line), c.code, c.id)
		}
		s.ping(100 + i)
	}
	// Blank lines are no messages.
	s.send("")
	s.send("   \r")
	s.ping(200)
	// A 40 MB line is not read into memory whole: it is answered with -32600 and skipped.
	s.send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"quiz_item","arguments":{"kata":"` + strings.Repeat("a", 40<<20) + `"}}}`)
	if m := s.next(); m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "null" || !strings.Contains(m.Error.Message, "more than") {
		t.Errorf("a 40 MB line: %.300s", m.line)
	}
	s.ping(201)
}

// TestHugeArgumentsAreNotEchoed: an argument of 8 MB, within the line limit, reaches the tool,
// and its typed error quotes the start of it, never all of it.
func TestHugeArgumentsAreNotEchoed(t *testing.T) {
	s := rawConnect(t, newTestServer(t))
	s.initialize("2025-11-25")
	huge := strings.Repeat("x", 8<<20)
	for i, args := range []string{
		`{"name":"grade_workspace","arguments":{"workspace":"/tmp/` + huge + `"}}`, // quoted twice before
		`{"name":"quiz_item","arguments":{"kata":"mcp-structured-errors","` + huge + `":1}}`,
	} {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, args))
		m := s.next()
		var res mcp.CallToolResult
		if err := json.Unmarshal(m.Result, &res); err != nil || !res.IsError {
			t.Fatalf("call %d: %.300s", i+1, m.line)
		}
		if len(m.line) > 16<<10 {
			t.Errorf("call %d: a reply of %d bytes echoes the argument: %.300s", i+1, len(m.line), m.line)
		}
		if !strings.Contains(m.line, "bytes in all") {
			t.Errorf("call %d: the explanation does not say the argument was cut: %.600s", i+1, m.line)
		}
	}
}

// TestNoResponseAfterCancellation: once a client has cancelled a request in flight, the
// server sends no response to it (MCP, "Cancellation"), and the session goes on.
func TestNoResponseAfterCancellation(t *testing.T) {
	ms := newTestServer(t)
	entered, returned := make(chan struct{}), make(chan struct{})
	ms.AddTool(&mcp.Tool{Name: "wait_for_cancel", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			defer close(returned)
			close(entered)
			<-ctx.Done()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished anyway"}}}, nil
		})
	s := rawConnect(t, ms)
	s.initialize("2025-11-25")
	s.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"wait_for_cancel","arguments":{}}}`)
	<-entered
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"the user pressed stop"}}`)
	<-returned
	s.ping(1)
	// A cancellation of a request that was answered, or never sent, changes nothing.
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never"}}`)
	s.ping(2)
	// Close the session and read everything the server still writes: nothing for "slow".
	s.in.Close()
	rest, _ := io.ReadAll(s.out)
	if strings.Contains(string(rest), `"slow"`) {
		t.Errorf("the server answered the cancelled request:\n%s", rest)
	}
	if err := <-s.done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

func TestClip(t *testing.T) {
	if got := clip("short"); got != "short" {
		t.Errorf("clip(short) = %q", got)
	}
	long := strings.Repeat("я", 2000) // 4000 bytes; a cut must not split a character
	got := clip(long)
	if len(got) > maxEcho+40 || !strings.HasSuffix(got, "… (4000 bytes in all)") || !strings.HasPrefix(got, "яя") {
		t.Errorf("clip: %d bytes, %q", len(got), got[len(got)-40:])
	}
	if strings.ContainsRune(got, '\uFFFD') {
		t.Error("clip split a character")
	}
}
