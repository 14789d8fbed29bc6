// A P2P responder for `tests/p2p-interop/run`, built inside a temporary copy of sei-chain's
// packages: upstream's own secret connection, sized-message I/O, pb/protoutils (wireguard field
// check) and gogoproto NodeInfo, in internal/p2p/handshake.go's order. It prints one JSON line
// per connection with what it decoded from the client.
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	gogoproto "github.com/gogo/protobuf/proto"
	"github.com/sei-protocol/sei-chain/sei-tendermint/internal/p2p/conn"
	"github.com/sei-protocol/sei-chain/sei-tendermint/internal/p2p/pb"
	"github.com/sei-protocol/sei-chain/sei-tendermint/internal/protoutils"
	"github.com/sei-protocol/sei-chain/sei-tendermint/libs/utils/tcp"
	tmp2p "github.com/sei-protocol/sei-chain/sei-tendermint/proto/tendermint/p2p"
)

func nodeID(pub []byte) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:20])
}

type seen struct {
	Err        string  `json:"err,omitempty"`
	ClientID   string  `json:"clientId,omitempty"`
	ClientSelf *string `json:"clientSelf"`
	ClientPex  int     `json:"clientPex"`
	Network    string  `json:"network,omitempty"`
	Moniker    string  `json:"moniker,omitempty"`
	ListenAddr string  `json:"listenAddr,omitempty"`
	Block      uint64  `json:"block"`
	ExtraBytes int     `json:"extraBytes"`
}

func main() {
	network := flag.String("network", "pacific-1", "")
	noSelf := flag.Bool("no-self", false, "")
	listenAddr := flag.String("listen-addr", "", "")
	flag.Parse()
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = 0x5e
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	id := nodeID(pub)
	addr := tcp.TestReserveAddr()
	l, err := tcp.Listen(addr)
	if err != nil {
		panic(err)
	}
	fmt.Printf("LISTEN %s@%s\n", id, addr)
	self := fmt.Sprintf("mconn://%s@%s", id, addr)
	la := *listenAddr
	if la == "" {
		la = "tcp://" + addr.String()
	}
	for i := 0; i < 20; i++ {
		c, err := l.AcceptOrClose(context.Background())
		if err != nil {
			panic(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		go func() { _ = c.Run(ctx) }()
		s := respond(ctx, c, priv, pub, self, *noSelf, *network, la)
		cancel()
		out, _ := json.Marshal(s)
		fmt.Println(string(out))
	}
}

func respond(ctx context.Context, c tcp.Conn, priv ed25519.PrivateKey, pub ed25519.PublicKey, self string, noSelf bool, network, la string) (s seen) {
	defer c.Close()
	fail := func(err error) seen { s.Err = err.Error(); return s }
	sc, err := conn.MakeSecretConnection(ctx, c)
	if err != nil {
		return fail(err)
	}
	ch := sc.Challenge()
	msg := &pb.Handshake{
		NodeAuthKey: &pb.NodePublicKey{Ed25519: pub},
		NodeAuthSig: ed25519.Sign(priv, ch[:]),
		PexAddrs:    []string{self, "mconn://34750f98bd59fcfc946da45aaabe933be154a4b5@10.0.0.10:26656"},
	}
	if !noSelf {
		msg.SelfAddr = &self
	}
	if err := conn.WriteSizedMsg(ctx, sc, protoutils.Marshal(msg)); err != nil {
		return fail(err)
	}
	if err := sc.Flush(ctx); err != nil {
		return fail(err)
	}
	b, err := conn.ReadSizedMsg(ctx, sc, 1024*1024)
	if err != nil {
		return fail(fmt.Errorf("read handshake: %w", err))
	}
	theirs, err := protoutils.Unmarshal[*pb.Handshake](b)
	if err != nil {
		return fail(fmt.Errorf("unmarshal handshake: %w", err))
	}
	if theirs.NodeAuthKey == nil || len(theirs.NodeAuthKey.Ed25519) != 32 || len(theirs.NodeAuthSig) != 64 {
		return fail(errors.New("bad key/sig sizes"))
	}
	if !ed25519.Verify(theirs.NodeAuthKey.Ed25519, ch[:], theirs.NodeAuthSig) {
		return fail(errors.New("client signature does not verify"))
	}
	s.ClientID = nodeID(theirs.NodeAuthKey.Ed25519)
	s.ClientSelf = theirs.SelfAddr
	s.ClientPex = len(theirs.PexAddrs)
	info := tmp2p.NodeInfo{
		ProtocolVersion: tmp2p.ProtocolVersion{P2P: 8, Block: 11},
		NodeID:          nodeID(pub),
		ListenAddr:      la,
		Network:         network,
		Version:         "0.35.0-unreleased",
		Channels:        []byte{0},
		Moniker:         "go-responder",
		Other:           tmp2p.NodeInfoOther{TxIndex: "off"},
	}
	ib, _ := gogoproto.Marshal(&info)
	if err := conn.WriteSizedMsg(ctx, sc, ib); err != nil {
		return fail(err)
	}
	if err := sc.Flush(ctx); err != nil {
		return fail(err)
	}
	nb, err := conn.ReadSizedMsg(ctx, sc, 10240)
	if err != nil {
		return fail(fmt.Errorf("read nodeinfo: %w", err))
	}
	var pi tmp2p.NodeInfo
	if err := gogoproto.Unmarshal(nb, &pi); err != nil {
		return fail(err)
	}
	s.Network, s.Moniker, s.ListenAddr, s.Block = pi.Network, pi.Moniker, pi.ListenAddr, pi.ProtocolVersion.Block
	if pi.NodeID != s.ClientID {
		return fail(fmt.Errorf("nodeinfo id %q != %q", pi.NodeID, s.ClientID))
	}
	// Anything more is beyond the handshake.
	buf := make([]byte, 1)
	rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
	defer rcancel()
	for s.ExtraBytes < 100000 {
		if err := sc.Read(rctx, buf); err != nil {
			break
		}
		s.ExtraBytes++
	}
	return s
}
