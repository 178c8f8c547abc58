package config

// Example returns a commented config file that sets every key, for
// `replayctl config example`. It parses without error; its values are
// illustrations, not defaults (the comments say the defaults).
func Example() string { return example }

const example = `# replayctl config file (--config replay.yaml). Every key is optional;
# command-line flags override the file. Durations: 50ms, 1.5s, 2m.

# Pace: realtime (the default) | fast | stepped | Nx (10x, 0.5x) |
# fixed:<duration> (a fixed gap) | rps:<N> (a target request rate).
speed: 10x

# Replay only this window of the tape, by recorded time (0s: from the
# start / to the end).
start_offset: 1s
end_offset: 10m

# Which client messages to replay, by method (empty: all of them).
include_methods: [initialize, tools/list, tools/call]
exclude_methods: [logging/setLevel]
# Leave out the client's notifications.
skip_notifications: true

# Rules applied to each message before it is sent, in order. A rule has a
# condition (its keys are ANDed; a rule needs at least one) and an action
# (one or more of the keys below, applied in the order listed there).
transformations:
  - name: fresh token
    condition:
      method_equals: tools/call     # the message's method
      session: s1                   # the recorded session
    action:
      # Paths are JSONPath-style. Values may use ${env.NAME} (never shown in
      # reports or logs; the replay fails if NAME is unset) and the
      # templates {{uuid}}, {{now}}, {{seq}}, {{session}}.
      set_param: { path: "$.params.arguments.token", value: "${env.AUTH_TOKEN}" }
      remove_param: { path: "$.params.arguments.debug" }
      replace_param:                # a regular expression on a string value
        path: "$.params.arguments.url"
        pattern: "https://staging\\.example\\.com"
        replacement: "http://localhost:8080"

  - name: fresh ids
    condition: { always: true }     # every message
    action:
      regenerate_id: true           # a new id instead of the recorded one

  - name: search answers vary
    condition:
      kind: request                 # request | notification | response | error
      seq_range: [10, 20]           # [from, to], inclusive
      when: 'params.name == "search"'  # an expression, as debug breakpoints
    action:
      set_result: { path: "$.result.content[0].text", value: "{{uuid}}" }  # what the validator will expect
      add_delay: 50ms               # wait this long before sending

  - name: server error at seq 12
    condition: { seq: 12 }
    action:
      # Answer with this JSON-RPC error instead of sending the request.
      inject_error: { code: -32603, message: "internal error", data: { retry: false } }

  - name: renamed tool method
    condition: { method: tools/invoke }   # method is the same as method_equals
    action:
      rename_method: { to: tools/call }

  - name: no progress
    condition: { method_equals: notifications/progress }
    action:
      drop: true                    # never sent; drop goes alone

# How each answer is compared with the recorded one.
validation:
  enabled: true                     # default true
  # exact (default): every byte not ignored | structural: same shape and
  # types, values may differ | partial: only required_fields | schema: the
  # shape MCP requires for the method.
  mode: structural
  # Paths never compared; * is one member, [*] any index, ** any depth.
  ignore_fields: ["**.timestamp", "result.content[*].annotations"]
  # Values that change every run, compared as equal wherever they are in
  # a string (the rest of the string is still compared): uuid | timestamp
  # (RFC 3339, ISO 8601, JavaScript's Date.toString, HTTP and Unix dates)
  # | ids (ids inside text) | {regex, placeholder}: every match of a Go
  # regular expression becomes the placeholder (default <match>).
  normalize:
    - uuid
    - timestamp
    - ids
    - regex: 'took \d+ ?ms'
      placeholder: took <n> ms
  tolerance:
    numeric: 0.01                   # absolute difference allowed
    relative: 0.001                 # fraction of the expected value
  # Rules for the messages a scope matches (scope keys as a rule's
  # condition; no scope: every message).
  rules:
    - scope: { method: tools/list }
      mode: partial
      required_fields: ["result.tools[*].name"]
      ignore_fields: ["result.tools[*].description"]
      on_failure: warn              # ignore | warn | error (fails the run) | retry | skip
    - scope: { kind: error }
      mode: schema
      on_failure: retry             # send again, up to max_retries times
      max_retries: 2

# What a failed message does to the replay.
error_handling:
  strategy: continue                # continue (default) | stop | retry | pause (debug only)
  max_retries: 3                    # with strategy retry (default 3)
  retry_delay: 1s

# Load replays.
performance:
  max_inflight: 10                  # requests in flight per session (default 1000)
  sessions: 4                       # virtual copies of each recorded session (default 1)
  ramp: 2s                          # spread the sessions' starts over this time
  timeout: 30s                      # an answer not there by then is cancelled (default 30s)
  spin: 1ms                         # paced speeds: yield this long before each due time, not sleep (default 1ms; 0: never)
  gc_headroom: 64MiB                # garbage made between two of Go's collections (default 64MiB; 0: Go's own pace)

# Chaos replays: seeded faults; the same seed gives the same faults.
chaos:
  seed: 42
  # Probability of each fault per message (they add up to at most 1).
  # Sent to the target: malformed (not JSON) | invalid (not JSON-RPC) |
  # unknown-method | bad-params | duplicate-id | duplicate | drop |
  # reorder | cancel | disconnect | slow-write | burst. On the answer:
  # timeout | network-error | invalid-response | error-response.
  faults: { malformed: 0.05, timeout: 0.02, error-response: 0.01 }
  # Faults aimed at one method: at its Nth call (from 1), or with a
  # probability on every call.
  targets:
    - { method: tools/call, nth: 3, fault: disconnect }
    - { method: resources/read, fault: error-response, probability: 0.1 }

# Pass/fail gates for CI (exit 1 when one fails): a metric, a comparison,
# a value; a latency takes its unit (200ms, 1.5s).
thresholds: ["p99<200ms", "error_rate<1%", "validation_failed==0"]

# Keep every run in the run store in this folder (replayctl history reads
# it); $REPLAYCTL_HISTORY and run --history override it.
history: .replayctl-history
`
