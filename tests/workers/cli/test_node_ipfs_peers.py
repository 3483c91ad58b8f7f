"""`node start --ipfs-peer`: a peer's swarm multiaddr must end with its peer id, and the peers are
dialed from the node's IPFS node, so --ipfs-api must be given; both refused before anything starts."""


def test_a_peer_without_its_id_is_refused(node, invoke):
    node_dir, _ = node()
    bad = invoke(node_dir, "node", "start", "--roles", "sampler", "--ipfs-api", "/ip4/127.0.0.1/tcp/5001/http",
                 "--ipfs-peer", "/ip4/10.0.0.7/tcp/4001")
    assert bad.exit_code == 2
    assert "--ipfs-peer: '/ip4/10.0.0.7/tcp/4001' is not a peer's swarm multiaddr" in bad.output
    assert not (node_dir / "node.json").exists()


def test_peers_without_an_ipfs_node_are_refused(node, invoke):
    node_dir, _ = node()
    alone = invoke(node_dir, "node", "start", "--roles", "sampler",
                   "--ipfs-peer", "/ip4/10.0.0.7/tcp/4001/p2p/12D3KooWLPN2n6brda9vPnsYa4uvj2vTpadnvQZubvnW94HCHE2k")
    assert alone.exit_code == 2 and "--ipfs-peer needs --ipfs-api" in alone.output
