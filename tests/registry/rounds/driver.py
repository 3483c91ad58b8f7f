"""RoundDriver: commits, reveals, opens draws and attests (seals, then opens votes) for the nodes of
one task; `send` and small helpers."""

from brownie import accounts, chain
from eth_utils import keccak

from workers.protocol import Role, attest_commitment, commitment, draw_commitment

TOKEN = 10**18


def send(fn, *args, sender):
    """Calls `fn(*args)` from `sender` and returns the transaction."""
    return fn(*args, {"from": sender})


class RoundDriver:
    """Acts for the nodes of `task_id`. Results are deterministic per (node, round), so a test can
    recompute what a node committed; every action returns its transaction."""

    def __init__(self, registry, state, task_id, samplers, trainer):
        self.registry, self.state = registry, state  # state: StateView, the records the registry does not serve
        self.task_id = task_id
        self.samplers = list(samplers)
        self.trainer = trainer

    # ------------------------------------------------------------ state
    def task(self):
        return self.state.taskOf(self.task_id)

    @property
    def round(self):
        return self.task()["round"]

    @property
    def all_bits(self):
        """Accepts every sampler slot and the trainer."""
        return (1 << (self.task()["numSamplers"] + 1)) - 1

    def validators(self):
        """Current validator slot holders (drawn at random), in slot order; vacant slots skipped."""
        nodes = [self.state.slotOf(self.task_id, Role.VALIDATOR, i)["node"]
                 for i in range(self.task()["numValidators"])]
        return [accounts.at(n, force=True) for n in nodes if int(n, 16) != 0]

    # ------------------------------------------------------------ results
    def result(self, node, round_=None):
        """(root, cid, salt) that `node` produces in `round_` (default: the current round). The salt
        is its draw commitment for the next round (forced errors), opened by `open_draws` then."""
        round_ = self.round if round_ is None else round_
        tag = f"{self.task_id}/{round_}/{str(node).lower()}"
        salt = draw_commitment(self.task_id, round_ + 1, str(node), self.draw_secret(node, round_ + 1))
        return keccak(text="root:" + tag), "bafy-" + keccak(text=tag).hex()[:40], salt

    def draw_secret(self, node, round_):
        """The draw secret `node` holds for `round_` (committed by its reveal of the round before)."""
        return keccak(text=f"draw-secret:{self.task_id}/{round_}/{str(node).lower()}")

    def commitment_of(self, node, round_=None):
        round_ = self.round if round_ is None else round_
        root, cid, salt = self.result(node, round_)
        return commitment(self.task_id, round_, str(node), root, cid, salt)

    # ------------------------------------------------------------ actions
    def commit(self, node):
        return send(self.registry.commit, self.task_id, self.commitment_of(node), sender=node)

    def reveal(self, node):
        root, cid, salt = self.result(node)
        return send(self.registry.reveal, self.task_id, root, cid, salt, sender=node)

    def commit_samples(self, nodes=None):
        return [self.commit(n) for n in (self.samplers if nodes is None else nodes)]

    def reveal_samples(self, nodes=None):
        return [self.reveal(n) for n in (self.samplers if nodes is None else nodes)]

    def commit_checkpoint(self, node=None):
        return self.commit(node or self.trainer)

    def reveal_checkpoint(self, node=None):
        return self.reveal(node or self.trainer)

    def open_draws(self):
        """AttestReveal phase: every worker that revealed this round with a draw to open opens it
        (TaskRegistry.openDraw); returns the transactions."""
        r, task = self.round, self.task()
        pending = self.state.drawnMask(self.task_id, r) & ~self.state.openedDrawMask(self.task_id, r)
        txs = []
        for i in range(task["numSamplers"] + 1):
            if not (pending >> i) & 1:
                continue
            trainer = i == task["numSamplers"]
            node = self.state.submissionOf(self.task_id, r, Role.TRAINER if trainer else Role.SAMPLER,
                                           0 if trainer else i)["node"]
            node = accounts.at(node, force=True)
            txs.append(send(self.registry.openDraw, self.task_id, r, self.draw_secret(node, r), sender=node))
        return txs

    def vote_salt(self, validator, round_=None):
        """The salt `validator` seals its vote of `round_` with (default: the current round)."""
        round_ = self.round if round_ is None else round_
        return keccak(text=f"vote-salt:{self.task_id}/{round_}/{str(validator).lower()}")

    def vote_commitment(self, validator, bitmap, round_=None):
        round_ = self.round if round_ is None else round_
        return attest_commitment(self.task_id, round_, str(validator), bitmap, self.vote_salt(validator, round_))

    def _votes(self, bitmap, validators):
        vals = self.validators() if validators is None else validators
        bits = self.all_bits if bitmap is None else bitmap
        maps = bits if isinstance(bits, list) else [bits] * len(vals)
        return list(zip(vals, maps, strict=True))

    def seal_votes(self, bitmap=None, validators=None):
        """Attest phase: every validator (or those given) commits to `bitmap` (default: accept
        everything; a list: one per validator)."""
        r = self.round
        return [send(self.registry.commitAttestation, self.task_id, r, self.vote_commitment(v, b, r), sender=v)
                for v, b in self._votes(bitmap, validators)]

    def open_votes(self, bitmap=None, validators=None):
        """AttestReveal phase: the validators open what `seal_votes` committed (same arguments)."""
        r = self.round
        return [send(self.registry.attest, self.task_id, r, b, self.vote_salt(v, r), sender=v)
                for v, b in self._votes(bitmap, validators)]

    def attest_all(self, bitmap=None, validators=None):
        """Every validator (or those given) seals `bitmap` (default: accept everything; a list: one
        per validator), the workers open their draws, then the validators open their votes; returns
        the vote openings. With only some validators the Attest phase stays open: use seal_votes,
        expire, open_draws and open_votes instead."""
        vals = self.validators() if validators is None else validators
        self.seal_votes(bitmap, vals)
        self.open_draws()
        return self.open_votes(bitmap, vals)

    def work(self):
        """Samplers and trainer commit and reveal; the task is left in Attest."""
        self.commit_samples()
        self.reveal_samples()
        self.commit_checkpoint()
        return self.reveal_checkpoint()

    def play_round(self, bitmap=None):
        """A whole round with every submission accepted (or attested with `bitmap`); returns the
        transaction of the last opened vote, which finalizes the round."""
        self.work()
        return self.attest_all(bitmap)[-1]

    def expire(self):
        """Moves protocol time past the current phase deadline and calls advance."""
        deadline = self.task()["phaseDeadline"]
        chain.sleep(deadline - chain[-1].timestamp + 1)
        chain.mine()
        return send(self.registry.advance, self.task_id, sender=accounts[0])


def events_of(tx, name):
    """The events `name` of `tx` as a list of dicts."""
    return [dict(e) for e in tx.events[name]] if name in tx.events else []
