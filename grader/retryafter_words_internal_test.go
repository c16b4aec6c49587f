package grader

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// An HTTP-date Retry-After is checked against the figure the failure's description of the API
// quotes (issue 27: "an HTTP-date 153 s ahead" beside "worth 154 s").
func TestHTTPDateRetryAfterQuotesOneFigure(t *testing.T) {
	api, err := startOrdersAPI("tok")
	if err != nil {
		t.Fatal(err)
	}
	defer api.close()
	b := &behaviour{kind: katas.BackendStatus, status: 429, retryAfter: katas.RetryAfterHTTPDate, delay: 154}
	api.setOrder("ORD-1234", b)
	req, _ := http.NewRequest(http.MethodGet, api.URL+"/orders/ORD-1234", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sent, ok := api.retryAfterSent("ORD-1234")
	described := i18n.New("en").Say(describeBehaviour(b))
	if !ok || !strings.Contains(described, strconv.Itoa(int(sent))+" s ahead") {
		t.Errorf("the API sent a date worth %v s, its description says %q", sent, described)
	}
}
