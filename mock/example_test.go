package mock_test

import (
	"context"
	"fmt"
	"log"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

func ExampleServer() {
	rec := `{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":1,"t_us":900,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
`
	srv, err := mock.NewServer(tape.Bytes("example", []byte(rec)))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	sess, _ := srv.Open(ctx, transport.SessionInfo{ID: "me"})
	defer sess.Close()
	show := func(_ context.Context, msg []byte) error { fmt.Printf("%s\n", msg); return nil }
	sess.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"live","method":"tools/list"}`), show)
	sess.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`), func(context.Context, []byte) error { return nil })
	for _, m := range srv.Misses() {
		fmt.Println("miss:", m)
	}
	// Output:
	// {"jsonrpc":"2.0","id":"live","result":{"tools":[]}}
	// miss: tools/call (id 2): the tape has no tools/call request (it has tools/list)
}
