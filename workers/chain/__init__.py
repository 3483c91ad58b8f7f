"""The node's chain layer: committed ABIs and deployment records (deployment), revert decoding
(errors), one transaction sender per account (sender), the event watcher (watcher), encrypted
keystores (keystore) and a typed read API (view). Plain modules on web3 7; no brownie."""
