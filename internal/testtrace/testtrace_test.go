package testtrace

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const meta = `{"ph":"M","pid":2,"tid":2,"name":"process_name","args":{"name":"session s1"}},
{"ph":"M","pid":2,"tid":2,"name":"thread_name","args":{"name":"s1"}}`

// TestCheck: a valid trace passes with its counts, and each broken rule
// is caught: the checker can fail.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events string
		want   string // "" valid
	}{
		{"valid", meta + `,
{"ph":"b","ts":1,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"ping"},
{"ph":"b","ts":2,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"awaiting answer","bind_id":"0x1","flow_out":true},
{"ph":"b","ts":2,"pid":2,"tid":2,"id":"0x2","cat":"request","name":"ping"},
{"ph":"e","ts":4,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"awaiting answer"},
{"ph":"e","ts":4,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"ping"},
{"ph":"X","ts":4,"dur":0,"pid":2,"tid":2,"name":"answer","bind_id":"0x1","flow_in":true},
{"ph":"X","ts":4,"dur":0,"pid":2,"tid":2,"name":"answer"},
{"ph":"i","ts":5,"pid":2,"tid":2,"s":"t","name":"fault: drop"},
{"ph":"e","ts":6,"pid":2,"tid":2,"id":"0x2","cat":"request","name":"ping"},
{"ph":"C","ts":6,"pid":2,"tid":2,"name":"lag","args":{"us":3}}`, ""},
		{"extra key", meta, "displayTimeUnit"},
		{"no process name", `{"ph":"M","pid":2,"tid":2,"name":"thread_name","args":{"name":"s1"}},
{"ph":"i","ts":5,"pid":2,"tid":2,"s":"t","name":"x"}`, "has no process_name"},
		{"no thread name", `{"ph":"M","pid":2,"tid":2,"name":"process_name","args":{"name":"s1"}},
{"ph":"i","ts":5,"pid":2,"tid":2,"s":"t","name":"x"}`, "has no thread_name"},
		{"time goes back", meta + `,
{"ph":"i","ts":5,"pid":2,"tid":2,"s":"t","name":"x"},
{"ph":"i","ts":4,"pid":2,"tid":2,"s":"t","name":"y"}`, "time goes back"},
		{"overlap", meta + `,
{"ph":"X","ts":1,"dur":5,"pid":2,"tid":2,"name":"a"},
{"ph":"X","ts":3,"dur":5,"pid":2,"tid":2,"name":"b"}`, "overlaps"},
		{"begin never ends", meta + `,
{"ph":"b","ts":1,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"ping"}`, "never ends"},
		{"end of another", meta + `,
{"ph":"b","ts":1,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"ping"},
{"ph":"e","ts":2,"pid":2,"tid":2,"id":"0x1","cat":"request","name":"pong"}`, "while \"ping\" is open"},
		{"flow never ends", meta + `,
{"ph":"X","ts":1,"dur":0,"pid":2,"tid":2,"name":"a","bind_id":"0x9","flow_out":true}`, "starts and never ends"},
		{"flow never starts", meta + `,
{"ph":"X","ts":1,"dur":0,"pid":2,"tid":2,"name":"a","bind_id":"0x9","flow_in":true}`, "ends and never starts"},
		{"unknown phase", meta + `,
{"ph":"B","ts":1,"pid":2,"tid":2,"name":"a"}`, "phase \"B\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"traceEvents":[` + tc.events + `]}`
			if tc.name == "extra key" {
				doc = `{"displayTimeUnit":"ms","traceEvents":[` + tc.events + `]}`
			}
			s, err := Check([]byte(doc))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s.Slices["request"] != 2 || s.Flows != 1 || s.Instants["fault"] != 1 || s.Processes[2] != "session s1" {
					t.Fatalf("summary %+v: want 2 request slices, 1 flow, 1 fault, process 2 named", s)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
