package assistant

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes is the longest line (one JSON-RPC message, newline excluded) kata mcp reads.
// A longer line is skipped, answered with an Invalid Request error, and the session goes on.
const MaxMessageBytes = 16 << 20

// The JSON-RPC 2.0 error codes the transport answers bad input with (jsonrpc.org/specification,
// "Error object"; MCP's "Base protocol" uses JSON-RPC's).
const (
	codeParseError     = jsonrpc.CodeParseError     // the line is not JSON
	codeInvalidRequest = jsonrpc.CodeInvalidRequest // JSON, but not a JSON-RPC 2.0 message MCP allows
)

// lineTransport is the stdio transport of MCP (one JSON-RPC message per line, UTF-8) that,
// unlike the SDK's StdioTransport, survives bad input the way the reference servers do: a
// line that is not JSON is answered with a -32700 Parse error, and one that is not a
// JSON-RPC 2.0 message MCP allows (a batch array, "jsonrpc" other than "2.0", an id that is
// null, an object or a fraction, a method that is not a string) or that is longer than max
// bytes with a -32600 Invalid Request; the session then reads the next line. The SDK's own
// transport ends the session on any of these, with no reply.
//
// It also keeps the rule of MCP's "Cancellation" utility: once the client has sent
// notifications/cancelled for a request still in flight, the server sends no response to it.
type lineTransport struct {
	r   io.ReadCloser
	w   io.Writer
	max int
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.w, rc: t.r, lines: make(chan line), closed: make(chan struct{}), inflight: map[jsonrpc.ID]*inflight{}}
	go c.readLines(t.r, t.max)
	return c, nil
}

// line is one line read, or the error that ended the input.
type line struct {
	data   []byte
	tooBig int // the line's length when it was longer than the limit (data is then nil)
	err    error
}

// inflight is a request read and not yet answered.
type inflight struct {
	method    string
	cancelled bool
}

// lineConn is the connection of a lineTransport.
type lineConn struct {
	w       io.Writer
	writeMu sync.Mutex
	rc      io.Closer

	lines     chan line
	closed    chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	inflight map[jsonrpc.ID]*inflight
}

// readLines sends every line of r to c.lines, the newline and a carriage return before it
// removed. A line longer than max is not kept: its length is sent instead.
func (c *lineConn) readLines(r io.Reader, max int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var buf []byte
		n := 0
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			n += len(chunk)
			if n <= max+2 { // room for "\r\n"
				buf = append(buf, chunk...)
			} else {
				buf = nil
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if n > 0 {
			l := line{data: bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))}
			if n > max+2 || len(l.data) > max {
				l = line{tooBig: n}
			}
			if !c.send(l) {
				return
			}
		}
		if err != nil {
			c.send(line{err: err})
			return
		}
	}
}

// send passes l to Read; false when the connection is closed.
func (c *lineConn) send(l line) bool {
	select {
	case c.lines <- l:
		return true
	case <-c.closed:
		return false
	}
}

// Read implements mcp.Connection: the next message that is valid JSON-RPC. Bad lines are
// answered here and skipped.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			return nil, l.err
		}
		if l.tooBig > 0 {
			c.reply(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: a message of more than %d bytes (this line had %d); it was not read", MaxMessageBytes, l.tooBig))
			continue
		}
		if len(bytes.TrimSpace(l.data)) == 0 {
			continue
		}
		msg, id, code, text := decode(l.data)
		if code != 0 {
			c.reply(id, code, text)
			continue
		}
		c.track(msg)
		return msg, nil
	}
}

// track records a request in flight, and marks one cancelled by notifications/cancelled.
// The initialize request cannot be cancelled (MCP, "Cancellation").
func (c *lineConn) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.ID.IsValid() {
		c.inflight[req.ID] = &inflight{method: req.Method}
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	if f := c.inflight[id]; f != nil && f.method != "initialize" {
		f.cancelled = true
	}
}

// Write implements mcp.Connection. A response to a request the client cancelled is dropped.
func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		f := c.inflight[resp.ID]
		delete(c.inflight, resp.ID)
		c.mu.Unlock()
		if f != nil && f.cancelled {
			return nil
		}
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

// writeLine writes one message and its newline.
func (c *lineConn) writeLine(b []byte) error {
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// reply writes a JSON-RPC error response with the given id (JSON null when nil). A failed
// write is the next Write's failure too, so it is not reported here.
func (c *lineConn) reply(id any, code int64, message string) {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err == nil {
		c.writeLine(b)
	}
}

// Close implements mcp.Connection; it closes the input, which ends the reading goroutine.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.rc != nil {
			c.rc.Close()
		}
	})
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

// decode checks one line as a JSON-RPC 2.0 message of MCP and decodes it. When it is not one,
// code is the error code to answer with, text the error's message and id the id to answer
// (nil, JSON null, when the line has no usable id).
func decode(data []byte) (msg jsonrpc.Message, id any, code int64, text string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, codeParseError, "Parse error: " + clip(err.Error())
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, nil, codeParseError, "Parse error: more than one JSON value on the line (one message per line)"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if _, batch := v.([]any); batch {
			return nil, nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches (arrays) are not supported; send one message per line (MCP removed batching in 2025-06-18)"
		}
		return nil, nil, codeInvalidRequest, "Invalid Request: a message must be a JSON object"
	}
	rawID, hasID := obj["id"]
	idOK := false
	switch x := rawID.(type) {
	case string:
		id, idOK = x, true
	case json.Number:
		if _, err := x.Int64(); err == nil {
			id, idOK = x, true
		}
	}
	if hasID && !idOK {
		return nil, nil, codeInvalidRequest, "Invalid Request: id must be a string or an integer (MCP: never null)"
	}
	if obj["jsonrpc"] != "2.0" {
		return nil, id, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
	}
	method, hasMethod := obj["method"]
	if hasMethod {
		if _, ok := method.(string); !ok {
			return nil, id, codeInvalidRequest, "Invalid Request: method must be a string"
		}
		switch obj["params"].(type) {
		case nil, map[string]any, []any:
		default:
			return nil, id, codeInvalidRequest, "Invalid Request: params must be an object (or an array)"
		}
		if p, present := obj["params"]; present && p == nil {
			return nil, id, codeInvalidRequest, "Invalid Request: params must be an object, not null"
		}
	} else {
		_, hasResult := obj["result"]
		_, hasError := obj["error"]
		if !hasID || !(hasResult || hasError) {
			return nil, id, codeInvalidRequest, "Invalid Request: a request needs a method; a response needs an id and a result or an error"
		}
	}
	m, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			return nil, id, codeInvalidRequest, "Invalid Request: " + clip(werr.Message)
		}
		return nil, id, codeInvalidRequest, "Invalid Request: " + clip(err.Error())
	}
	return m, id, 0, ""
}
