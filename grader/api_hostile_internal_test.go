package grader

import (
	"net/http"
	"strings"
	"testing"
)

// TestHostileSaboteurCountsForNothing: every grade's Orders API listens on loopback, where any
// learner's code can reach it. Requests without that grade's own bearer token — a saboteur's
// junk, sent with no token or another grade's — are refused with 401 before anything is
// counted: they add no request to any fixture's id and no stray request, so they cannot fail
// an honest learner's fixtures (no-request-for-invalid, request counts). A server that sends
// its requests without the token is still caught by bearer-token: the refused requests for the
// fixture's own id are what requestsFor reports when no request with the token came.
func TestHostileSaboteurCountsForNothing(t *testing.T) {
	api, err := startOrdersAPI("honest")
	if err != nil {
		t.Fatal(err)
	}
	defer api.close()
	api.setOrder("ORD-1234", &behaviour{kind: "ok", order: map[string]any{"id": "ORD-1234"}})
	send := func(method, path, auth, body string) int {
		req, _ := http.NewRequest(method, api.URL+path, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 20 {
		for _, auth := range []string{"", "Bearer other-grade", "Bearer honestX", "Basic aG9uZXN0"} {
			for _, c := range []struct{ method, path, body string }{
				{"GET", "/orders/ORD-1234", ""}, {"GET", "/orders/ORD-9999", ""}, {"GET", "/orders/", ""},
				{"GET", "/customers/CUS-1/orders?page=1", ""}, {"GET", "/nowhere", ""},
				{"POST", "/refunds", `{"order_id": "ORD-1234", "amount": 1}`}, {"POST", "/refunds", `junk`},
			} {
				if code := send(c.method, c.path, auth, c.body); code != http.StatusUnauthorized {
					t.Fatalf("%s %s with %q: status %d, want 401", c.method, c.path, auth, code)
				}
			}
		}
	}
	if n := api.strayRequests(); n != 0 {
		t.Errorf("the saboteur's requests counted %d stray requests", n)
	}
	if got := api.requestsFor("ORD-1234"); len(got) != 0 && got[0].Authorized {
		t.Errorf("requests without the token were counted as the grade's own: %+v", got)
	}
	// the honest server's request is counted alone
	if code := send("GET", "/orders/ORD-1234", "Bearer honest", ""); code != http.StatusOK {
		t.Fatalf("the grade's own request: status %d", code)
	}
	if got := api.requestsFor("ORD-1234"); len(got) != 1 || !got[0].Authorized {
		t.Errorf("requestsFor after one request with the token: %+v, want that one", got)
	}
	// a server without its token: its refused requests name the fixture's id for bearer-token
	other, err := startOrdersAPI("tok2")
	if err != nil {
		t.Fatal(err)
	}
	defer other.close()
	other.setOrder("ORD-5555", &behaviour{kind: "ok"})
	req, _ := http.NewRequest("GET", other.URL+"/orders/ORD-5555", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := other.requestsFor("ORD-5555"); len(got) != 1 || got[0].Authorized {
		t.Errorf("a request without the token for the fixture's id: requestsFor = %+v, want it, unauthorized", got)
	}
	if n := other.strayRequests(); n != 0 {
		t.Errorf("a request without the token counted as stray: %d", n)
	}
}
