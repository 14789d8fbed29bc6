// Command tendermint-node runs a real sei-tendermint node for sei-console's tests: a validator
// with the in-process kvstore app producing blocks, a full node that syncs, or a seed. It only
// calls sei-tendermint's public packages (config, privval, types, node, abci/example/kvstore);
// there is no protocol code here. Upstream removed its own cmd/tendermint entry point.
//
//	tendermint-node init --home DIR --mode validator|full|seed [--chain-id ID | --genesis FILE] ...
//	tendermint-node start --home DIR [--max-lifetime 10m] [--exit-with-parent]
//
// init writes DIR/config/{config.toml,node_key.json,genesis.json} (and the validator key) and
// prints the node's ID; start runs the node until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/viper"

	"github.com/sei-protocol/sei-chain/sei-tendermint/abci/example/kvstore"
	abci "github.com/sei-protocol/sei-chain/sei-tendermint/abci/types"
	"github.com/sei-protocol/sei-chain/sei-tendermint/config"
	"github.com/sei-protocol/sei-chain/sei-tendermint/node"
	"github.com/sei-protocol/sei-chain/sei-tendermint/privval"
	"github.com/sei-protocol/sei-chain/sei-tendermint/types"
)

func main() {
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "init":
		err = initHome(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "start":
		err = start(os.Args[2:])
	default:
		err = errors.New("usage: tendermint-node init|start --home DIR [flags]")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tendermint-node:", err)
		os.Exit(1)
	}
}

func initHome(args []string) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	home := fs.String("home", "", "home directory")
	mode := fs.String("mode", config.ModeValidator, "validator | full | seed")
	chainID := fs.String("chain-id", "sei-console-test", "chain ID of a new genesis (validator)")
	genesis := fs.String("genesis", "", "genesis.json to copy instead of making one")
	moniker := fs.String("moniker", "", "moniker (default: the mode)")
	p2pAddr := fs.String("p2p-laddr", "tcp://127.0.0.1:26656", "P2P listen address")
	rpcAddr := fs.String("rpc-laddr", "tcp://127.0.0.1:26657", "RPC listen address (\"\" for none)")
	external := fs.String("external-address", "", "p2p.external-address")
	persistent := fs.String("persistent-peers", "", "ID@HOST:PORT,...")
	bootstrap := fs.String("bootstrap-peers", "", "ID@HOST:PORT,...")
	pex := fs.Bool("pex", true, "p2p.pex (peer exchange; addresses in the Handshake)")
	commit := fs.Duration("timeout-commit", 500*time.Millisecond, "consensus commit timeout of a new genesis (the block interval)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *home == "" {
		return errors.New("init: --home is required")
	}
	cfg := config.DefaultConfig().SetRoot(*home)
	cfg.Mode, cfg.Moniker = *mode, *mode
	if *moniker != "" {
		cfg.Moniker = *moniker
	}
	cfg.P2P.ListenAddress, cfg.RPC.ListenAddress = *p2pAddr, *rpcAddr
	cfg.P2P.ExternalAddress = *external
	cfg.P2P.PersistentPeers, cfg.P2P.BootstrapPeers = *persistent, *bootstrap
	cfg.P2P.PexReactor, cfg.P2P.AllowDuplicateIP = *pex, true
	cfg.P2P.DialInterval = time.Second // loopback networks come up in seconds, not minutes
	if err := cfg.ValidateBasic(); err != nil {
		return err
	}
	config.EnsureRoot(*home)
	if err := config.WriteConfigFile(*home, cfg); err != nil {
		return err
	}
	nodeKey := types.GenNodeKey()
	if err := nodeKey.SaveAs(cfg.NodeKeyFile()); err != nil {
		return err
	}
	if *genesis != "" {
		doc, err := types.GenesisDocFromFile(*genesis)
		if err != nil {
			return err
		}
		if err := doc.SaveAs(cfg.GenesisFile()); err != nil {
			return err
		}
	} else if *mode == config.ModeValidator {
		if err := newGenesis(cfg, *chainID, *commit); err != nil {
			return err
		}
	} else {
		return errors.New("init: a full node or a seed needs --genesis")
	}
	fmt.Println(nodeKey.ID)
	return nil
}

// newGenesis makes the validator's key and a genesis with it as the only validator.
func newGenesis(cfg *config.Config, chainID string, commit time.Duration) error {
	pv, err := privval.GenFilePV(cfg.PrivValidator.KeyFile(), cfg.PrivValidator.StateFile(), "")
	if err != nil {
		return err
	}
	if err := pv.Save(); err != nil {
		return err
	}
	pub, err := pv.GetPubKey(context.Background())
	if err != nil {
		return err
	}
	params := types.DefaultConsensusParams()
	params.Timeout.Commit = commit
	doc := types.GenesisDoc{
		GenesisTime:     time.Now(),
		ChainID:         chainID,
		InitialHeight:   1,
		ConsensusParams: params,
		Validators: []types.GenesisValidator{
			{Address: pub.Address(), PubKey: pub, Power: 10, Name: cfg.Moniker},
		},
	}
	if err := doc.ValidateAndComplete(); err != nil {
		return err
	}
	return doc.SaveAs(cfg.GenesisFile())
}

func start(args []string) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	home := fs.String("home", "", "home directory made by init")
	lifetime := fs.Duration("max-lifetime", 0, "exit after this long (0: never)")
	withParent := fs.Bool("exit-with-parent", false, "exit when the parent process is gone")
	if err := fs.Parse(args); err != nil {
		return err
	}
	v := viper.New()
	v.SetConfigFile(filepath.Join(*home, "config", "config.toml"))
	if err := v.ReadInConfig(); err != nil {
		return err
	}
	cfg := config.DefaultConfig()
	if err := v.Unmarshal(cfg); err != nil {
		return err
	}
	cfg.SetRoot(*home)
	if err := cfg.ValidateBasic(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *lifetime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *lifetime)
		defer cancel()
	}
	if *withParent {
		go exitWithParent(stop)
	}
	var app abci.Application
	if cfg.Mode != config.ModeSeed {
		// kvstore answers InitChain with the validators it was given: the genesis ones.
		doc, err := types.GenesisDocFromFile(cfg.GenesisFile())
		if err != nil {
			return err
		}
		kv := kvstore.NewApplication()
		kv.SetValidators(doc.ValidatorUpdates())
		app = kv
	}
	n, err := node.New(ctx, cfg, func() {}, app, nil, nil, node.NoOpMetricsProvider())
	if err != nil {
		return err
	}
	if err := n.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	n.Wait()
	return nil
}

// exitWithParent stops the node once its parent (a test process) is gone, even if it was killed.
func exitWithParent(stop context.CancelFunc) {
	parent := os.Getppid()
	for os.Getppid() == parent {
		time.Sleep(time.Second)
	}
	stop()
}
