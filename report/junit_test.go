package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The JUnit shapes as a CI system reads them, declared apart from the
// writer's so the test checks the XML and not the writer's own types.
type (
	ciSuites struct {
		XMLName  xml.Name  `xml:"testsuites"`
		Tests    int       `xml:"tests,attr"`
		Failures int       `xml:"failures,attr"`
		Errors   int       `xml:"errors,attr"`
		Suites   []ciSuite `xml:"testsuite"`
	}
	ciSuite struct {
		Name       string       `xml:"name,attr"`
		Tests      int          `xml:"tests,attr"`
		Failures   int          `xml:"failures,attr"`
		Errors     int          `xml:"errors,attr"`
		Skipped    int          `xml:"skipped,attr"`
		Properties []ciProperty `xml:"properties>property"`
		Cases      []ciCase     `xml:"testcase"`
		SystemOut  string       `xml:"system-out"`
	}
	ciProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	ciCase struct {
		Name      string     `xml:"name,attr"`
		Classname string     `xml:"classname,attr"`
		Time      string     `xml:"time,attr"`
		Failure   *ciProblem `xml:"failure"`
		Error     *ciProblem `xml:"error"`
		Skipped   *ciProblem `xml:"skipped"`
	}
	ciProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
)

func parseJUnit(t *testing.T, r Report) (ciSuites, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("got %.60q, want an XML declaration first", buf.String())
	}
	var doc ciSuites
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the JUnit XML does not parse: %v\n%s", err, buf.String())
	}
	return doc, buf.String()
}

func caseByName(s ciSuite, name string) (ciCase, bool) {
	for _, c := range s.Cases {
		if c.Name == name {
			return c, true
		}
	}
	return ciCase{}, false
}

func TestWriteJUnitGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.xml.golden", buf.Bytes())
}

func TestWriteJUnitSample(t *testing.T) {
	doc, _ := parseJUnit(t, sampleReport())
	if len(doc.Suites) != 1 || doc.Suites[0].Name != "s1" {
		t.Fatalf("suites: got %+v, want one named s1", doc.Suites)
	}
	s := doc.Suites[0]
	// seq 2 is a client notification: nothing was checked, so no test case.
	if s.Tests != 4 || s.Failures != 1 || s.Errors != 1 || doc.Tests != 4 || doc.Failures != 1 || doc.Errors != 1 {
		t.Errorf("counts: got suite %d/%d/%d, total %d/%d/%d, want 4 tests, 1 failure, 1 error", s.Tests, s.Failures, s.Errors, doc.Tests, doc.Failures, doc.Errors)
	}
	tests := []struct {
		name, time, failure, errMsg string
	}{
		{"seq 0 initialize", "0.003", "", ""},
		{"seq 3 tools/call", "0.013", `result.content[0].text: "sunny" → "rain" (and 1 more)`, ""},
		{"seq 5 tools/call", "0.000", "", "timeout: no answer within 5s; raise --timeout or check the server"},
		{"seq 6 notifications/progress", "0.000", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := caseByName(s, tt.name)
			if !ok {
				t.Fatalf("no test case %q in %+v", tt.name, s.Cases)
			}
			if c.Classname != "s1" || c.Time != tt.time {
				t.Errorf("got classname %q time %q, want s1 %q", c.Classname, c.Time, tt.time)
			}
			switch {
			case tt.failure != "":
				if c.Failure == nil || c.Failure.Message != tt.failure {
					t.Fatalf("failure: got %+v, want message %q", c.Failure, tt.failure)
				}
				for _, w := range []string{`result.content[0].text: "sunny" → "rain" (changed)`, "result.isError: (absent) → true (extra)"} {
					if !strings.Contains(c.Failure.Body, w) {
						t.Errorf("failure body: got %q, want it to contain %q", c.Failure.Body, w)
					}
				}
			case tt.errMsg != "":
				if c.Error == nil || c.Error.Message != tt.errMsg || c.Error.Type != "timeout" {
					t.Errorf("error: got %+v, want type timeout message %q", c.Error, tt.errMsg)
				}
			default:
				if c.Failure != nil || c.Error != nil || c.Skipped != nil {
					t.Errorf("got %+v, want a passing test case", c)
				}
			}
		})
	}
	wantProps := []ciProperty{
		{"run_id", sampleRunID}, {"tape", "weather.jsonl"}, {"target", "http://127.0.0.1:8080/mcp"}, {"speed", "10x"}, {"chaos_seed", "42"},
		{"load", "delivered: 2 requests at 50/s (+1 handshake, not paced), 100% of the 50/s intended (lag p99 1ms)"}, {"load_delivered", "true"},
		{"lag_p99_ms", "1"}, {"held_p99_ms", "0"},
	}
	if fmt.Sprint(s.Properties) != fmt.Sprint(wantProps) {
		t.Errorf("properties:\ngot  %+v\nwant %+v", s.Properties, wantProps)
	}
	if !strings.Contains(s.SystemOut, "session s1: 4 sent, 3 received, 2 passed, 1 failed") {
		t.Errorf("system-out: got %q, want the session's totals", s.SystemOut)
	}
}

// TestWriteJUnitCapped checks that failures and errors beyond the capped
// timeline are still test cases and that the XML says what was left out.
func TestWriteJUnitCapped(t *testing.T) {
	c := NewCollector(WithTimelineLimit(3), WithFailureLimit(4))
	for i := range 10 {
		r := request(int64(i), time.Duration(i)*time.Millisecond, 0, time.Millisecond, Passed)
		r.Session = fmt.Sprintf("s%d", 1+i%2) // s1, s2
		switch i {
		case 1, 6, 7, 8, 9:
			r.Verdict = Failed
			r.Differences = []Difference{{Path: fmt.Sprintf("result.n%d", i), Expected: json.RawMessage(`1`), Actual: json.RawMessage(`2`), Kind: "changed"}}
		case 5:
			r.Verdict, r.Err, r.ErrKind = Error, "connection reset", "transport"
		}
		c.Add(r)
	}
	rep := c.Report(Meta{Tape: "t.jsonl"})
	doc, _ := parseJUnit(t, rep)
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "s1" || doc.Suites[1].Name != "s2" {
		t.Fatalf("suites: got %d, want s1 and s2", len(doc.Suites))
	}
	// Timeline: seq 0, 1, 2. Kept failures: 1, 6, 7, 8 (9 is over the
	// limit). Error: 5.
	want := map[string][]string{
		"s1": {"seq 0 tools/call", "seq 2 tools/call", "seq 6 tools/call", "seq 8 tools/call"},
		"s2": {"seq 1 tools/call", "seq 7 tools/call", "seq 5 tools/call"},
	}
	for _, s := range doc.Suites {
		var got []string
		for _, c := range s.Cases {
			got = append(got, c.Name)
		}
		if strings.Join(got, ",") != strings.Join(want[s.Name], ",") {
			t.Errorf("suite %s: got cases %v, want %v", s.Name, got, want[s.Name])
		}
		for _, w := range []string{"7 replayed messages are not test cases", "--timeline-limit", "1 validation failures were not kept"} {
			if !strings.Contains(s.SystemOut, w) {
				t.Errorf("suite %s system-out: got %q, want it to contain %q", s.Name, s.SystemOut, w)
			}
		}
	}
	if doc.Failures != 4 || doc.Errors != 1 || doc.Tests != 7 {
		t.Errorf("totals: got %d tests %d failures %d errors, want 7, 4, 1", doc.Tests, doc.Failures, doc.Errors)
	}
	if c, _ := caseByName(doc.Suites[0], "seq 8 tools/call"); c.Failure == nil || c.Failure.Message != "result.n8: 1 → 2" {
		t.Errorf("seq 8: got %+v, want the failure result.n8: 1 → 2", c.Failure)
	}
}

func TestWriteJUnitEdges(t *testing.T) {
	t.Run("failure list full", func(t *testing.T) {
		c := NewCollector(WithFailureLimit(0))
		c.Add(Result{Seq: 1, Session: "s1", Method: "tools/call", Verdict: Failed})
		doc, _ := parseJUnit(t, c.Report(Meta{}))
		got := doc.Suites[0].Cases[0].Failure
		if got == nil || !strings.Contains(got.Message, "details not kept") {
			t.Errorf("got %+v, want a failure saying its details were not kept", got)
		}
	})
	t.Run("skipped and unknown verdicts", func(t *testing.T) {
		c := NewCollector()
		c.Add(Result{Seq: 1, Session: "s1", Method: "ping", Verdict: Skipped})
		c.Add(Result{Seq: 2, Session: "s1", Method: "ping", Verdict: "weird"})
		doc, _ := parseJUnit(t, c.Report(Meta{}))
		s := doc.Suites[0]
		if s.Skipped != 1 || s.Errors != 1 || s.Cases[0].Skipped == nil || s.Cases[1].Error == nil || s.Cases[1].Error.Type != "unknown_verdict" {
			t.Errorf("got %+v, want a skipped case and an unknown_verdict error", s)
		}
	})
	t.Run("hostile text is escaped", func(t *testing.T) {
		c := NewCollector()
		session := "s<1>&\"'\x00\x1b]"
		c.Add(Result{Seq: 1, Session: session, Method: "a]]>b</testcase>", Verdict: Failed,
			Differences: []Difference{{Path: "result.<x>", Expected: json.RawMessage(`"</failure>\u0000"`), Actual: json.RawMessage("not json \x01 ]]>")}}})
		c.Add(Result{Seq: 2, Session: session, Verdict: Error, Err: "bad \x07 <error/> \xff"})
		doc, raw := parseJUnit(t, c.Report(Meta{Tape: "<tape>"}))
		if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 2 {
			t.Fatalf("got %+v, want one suite with two cases\n%s", doc, raw)
		}
		s := doc.Suites[0]
		if want := "s<1>&\"'\uFFFD\uFFFD]"; s.Name != want {
			t.Errorf("suite name: got %q, want %q", s.Name, want)
		}
		if c := s.Cases[0]; c.Name != "seq 1 a]]>b</testcase>" || c.Failure == nil || !strings.Contains(c.Failure.Body, `result.<x>: "</failure>\u0000" → "not json \u0001 ]]\u003e"`) {
			t.Errorf("case: got %+v (failure %+v), want the method and the difference intact", c, c.Failure)
		}
	})
	t.Run("thresholds suite", func(t *testing.T) {
		r := sampleReport()
		var ts []Threshold
		for _, s := range []string{"p99<10ms", "timeouts<=1"} {
			th, err := ParseThreshold(s)
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, th)
		}
		r.ApplyThresholds(ts)
		doc, _ := parseJUnit(t, r)
		last := doc.Suites[len(doc.Suites)-1]
		if last.Name != "thresholds" || last.Tests != 2 || last.Failures != 1 {
			t.Fatalf("last suite: got %s with %d tests %d failures, want thresholds 2 1", last.Name, last.Tests, last.Failures)
		}
		if f := last.Cases[0].Failure; f == nil || f.Message != "threshold p99<10ms failed: p99 was 12.5ms" {
			t.Errorf("p99 case: got %+v, want the threshold failure", f)
		}
		if last.Cases[1].Failure != nil {
			t.Errorf("timeouts<=1: got a failure, want a pass")
		}
	})
}

func TestJUnitSeconds(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.000"},
		{0.1 + 0.2, "0.300"}, // 0.30000000000000004
		{0.012000000000000002, "0.012"},
		{0.0035, "0.004"},
		{1e-7, "0.000"},
		{5.04, "5.040"},
		{12345.6789, "12345.679"},
	}
	for _, tt := range tests {
		if got := seconds(tt.in); got != tt.want {
			t.Errorf("seconds(%v): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWriteJUnitTimesFixed checks every time attribute of a report whose
// latencies add up with float noise has three decimals.
func TestWriteJUnitTimesFixed(t *testing.T) {
	c := NewCollector()
	c.Start(at(0))
	for i := range 30 {
		// 0.1ms + 0.2ms … sums that floats cannot hold exactly.
		lat := time.Duration(100+100*(i%3)) * time.Microsecond
		c.Add(request(int64(i), time.Duration(i)*time.Millisecond, 0, lat, Passed))
	}
	_, xmlText := parseJUnit(t, c.Report(Meta{Tape: "t.jsonl"}))
	re := regexp.MustCompile(`time="([^"]*)"`)
	ms := re.FindAllStringSubmatch(xmlText, -1)
	if len(ms) < 30 {
		t.Fatalf("got %d time attributes, want at least 30:\n%s", len(ms), xmlText)
	}
	fixed := regexp.MustCompile(`^\d+\.\d{3}$`)
	for _, m := range ms {
		if !fixed.MatchString(m[1]) {
			t.Errorf("time=%q: want three decimals, no float noise", m[1])
		}
	}
}
