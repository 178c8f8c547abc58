# Sourced by bench-side.sh and bench-server-cost.sh: what both send.

# side_tape FILE CALLS: the session both scripts replay, as recorded against
# the slow test server (initialize, initialized, CALLS tools/call echo).
side_tape() {
  awk -v calls="$2" 'BEGIN {
  print "{\"type\":\"header\",\"format\":\"replayctl-tape\",\"version\":1,\"protocol_version\":\"2025-06-18\",\"transport\":\"http\"}"
  m = "{\"type\":\"message\",\"seq\":%d,\"t_us\":%d,\"session\":\"s1\",\"dir\":\"%s\",\"msg\":%s}\n"
  printf m, 0, 0, "c2s", "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"b\",\"version\":\"1\"}}}"
  printf m, 1, 100, "s2c", "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"slow\",\"version\":\"1\"}}}"
  printf m, 2, 200, "c2s", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
  for (i = 1; i <= calls; i++) {
    printf m, 2*i+1, 100*(2*i+1), "c2s", "{\"jsonrpc\":\"2.0\",\"id\":" i ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}"
    printf m, 2*i+2, 100*(2*i+2), "s2c", "{\"jsonrpc\":\"2.0\",\"id\":" i ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}"
  }
}' > "$1"
}

# side_body FILE: the one tools/call vegeta and wrk post.
side_body() {
  printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' > "$1"
}
