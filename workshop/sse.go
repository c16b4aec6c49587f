package workshop

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// SSE is one Server-Sent Event (WHATWG HTML Living Standard §9.2.5 "Parsing an event
// stream"): its id, event name and data.
type SSE struct {
	ID    string
	Event string
	Data  string
	// Retry is the reconnection time the server asked for (0: not given).
	Retry time.Duration
}

// WriteSSE writes one event in the text/event-stream format: "id:", "event:", one "data:"
// line per line of data, and a blank line. An empty ID or Event is left out.
func WriteSSE(w io.Writer, e SSE) error {
	var b strings.Builder
	if e.Retry > 0 {
		fmt.Fprintf(&b, "retry: %d\n", e.Retry.Milliseconds())
	}
	if e.ID != "" {
		fmt.Fprintf(&b, "id: %s\n", e.ID)
	}
	if e.Event != "" {
		fmt.Fprintf(&b, "event: %s\n", e.Event)
	}
	for _, line := range strings.Split(e.Data, "\n") {
		fmt.Fprintf(&b, "data: %s\n", line)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// SSEReader reads Server-Sent Events from a text/event-stream body.
type SSEReader struct {
	r *bufio.Reader
	// lastID is the last event id seen, kept across events as the standard says.
	lastID string
}

// NewSSEReader reads events from r; lastID is the Last-Event-ID the stream was asked from.
func NewSSEReader(r io.Reader, lastID string) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 64<<10), lastID: lastID}
}

// Next returns the next event (comments and retry-only blocks skipped), or the read error
// (io.EOF when the stream ended). An event's ID is the last id seen so far.
func (s *SSEReader) Next() (SSE, error) {
	var (
		e       SSE
		data    []string
		hasData bool
	)
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return SSE{}, err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if !hasData {
				e.Event = ""
				continue
			}
			e.ID, e.Data = s.lastID, strings.Join(data, "\n")
			if e.Event == "" {
				e.Event = "message"
			}
			return e, nil
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			if !strings.ContainsRune(value, 0) {
				s.lastID = value
			}
		case "event":
			e.Event = value
		case "data":
			data, hasData = append(data, value), true
		case "retry":
			if ms, err := strconv.Atoi(value); err == nil {
				e.Retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

// LastID is the last event id the stream gave (or the one it was asked from).
func (s *SSEReader) LastID() string { return s.lastID }
