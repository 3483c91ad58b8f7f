"""workers/node/handlers/context.Secrets: what makes a reveal possible after a restart."""
from workers.node.handlers.context import Secrets


def test_a_stored_commitment_is_never_replaced(tmp_path):
    secrets = Secrets(tmp_path / "secrets.sqlite")
    first = secrets.save_commitment(1, 0, 0, b"\x01" * 32, "cid-a")
    again = Secrets(tmp_path / "secrets.sqlite").save_commitment(1, 0, 0, b"\x01" * 32, "cid-a")
    other = secrets.save_commitment(1, 0, 0, b"\x02" * 32, "cid-b")  # a recomputed, different result
    assert again == first and other == first and len(first.salt) == 32
    assert secrets.save_commitment(1, 1, 0, b"\x01" * 32, "cid-a").salt != first.salt  # next round
    assert secrets.commitment(1, 0, 1) is None  # another role


def test_a_sealed_vote_is_stored_once_with_its_salt(tmp_path):
    secrets = Secrets(tmp_path / "secrets.sqlite")
    assert secrets.vote(1, 0) is None
    first = secrets.save_vote(1, 0, 0b101)
    again = Secrets(tmp_path / "secrets.sqlite").save_vote(1, 0, 0b111)  # a re-verified, different bitmap
    assert again == first == secrets.vote(1, 0) and first.bitmap == 0b101 and len(first.salt) == 32
    assert secrets.save_vote(1, 1, 0b101).salt != first.salt  # next round


def test_challenge_seed_is_drawn_once_per_round(tmp_path):
    secrets = Secrets(tmp_path / "secrets.sqlite")
    seed = secrets.challenge_seed(3, 0)
    assert Secrets(tmp_path / "secrets.sqlite").challenge_seed(3, 0) == seed
    assert secrets.challenge_seed(3, 1) != seed and len(seed) == 32


def test_notes_by_task_in_order(tmp_path):
    secrets = Secrets(tmp_path / "secrets.sqlite")
    secrets.note(1, 0, 2, "verdict", {"bitmap": 7})
    secrets.note(2, 0, 2, "verdict", {"bitmap": 3})
    secrets.note(1, 1, 2, "verdict", {"bitmap": 5})
    assert [(n["round"], n["data"]["bitmap"]) for n in secrets.notes(1)] == [(0, 7), (1, 5)]
    assert len(secrets.notes()) == 3


def test_a_stored_juror_vote_is_never_replaced(tmp_path):
    secrets = Secrets(tmp_path / "secrets.sqlite")
    assert secrets.juror_vote(4) is None
    uphold, salt = secrets.save_juror_vote(4, True)
    assert uphold is True and len(salt) == 32
    # judged again after a restart, differently: the committed vote is the one kept
    assert Secrets(tmp_path / "secrets.sqlite").save_juror_vote(4, False) == (True, salt)
    assert secrets.save_juror_vote(5, True)[1] != salt  # another dispute, another salt
