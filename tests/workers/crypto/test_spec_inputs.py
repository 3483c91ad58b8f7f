"""A spec's "inputs" descriptor: optional, round-trips through the canonical bytes, leaves specs
without it byte-identical, and a bad field is named."""

import json

import pytest
from eth_account import Account

from workers.crypto import inputs
from workers.spec import DEMO_CARTPOLE, SpecError, TaskSpec, parse


def test_spec_without_inputs_has_no_inputs_key():
    assert "inputs" not in DEMO_CARTPOLE.to_dict()
    assert b"inputs" not in DEMO_CARTPOLE.to_bytes()


def test_spec_with_inputs_round_trips():
    descriptor, _ = inputs.encrypt(Account.create().key, b"policy", "initial_policy")
    spec = TaskSpec(encrypted_inputs=descriptor)
    assert parse(spec.to_bytes(), digest=spec.digest()) == spec
    assert spec.digest() != TaskSpec().digest()


def test_bad_inputs_field_is_named():
    descriptor, _ = inputs.encrypt(Account.create().key, b"policy", "initial_policy")
    d = TaskSpec(encrypted_inputs=descriptor).to_dict()
    d["inputs"]["algorithm"] = "ROT13"
    with pytest.raises(SpecError, match=r"^inputs\.algorithm: must be 'AES-256-GCM'"):
        parse(json.dumps(d).encode())
