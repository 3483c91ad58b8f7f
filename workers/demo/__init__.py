"""`decentrl demo`: the whole network on a local chain (see workers.demo.run)."""
