"""The three roles' work as plain functions: no chain, no Celery, no storage client.

`sampler` rolls out a shard and bundles it, `trainer` turns revealed shards into a checkpoint
bundle, `validator` re-executes both and produces the attest bitmap. The node's Celery tasks
fetch and store bytes, call these, and commit/reveal/attest what they return.

Every function pins torch to one CPU thread while it computes (`determinism.single_thread`): CPU
results then do not depend on how many cores a node has, which bit-for-bit verification needs."""
