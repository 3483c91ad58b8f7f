"""workers/spec.py parse on damaged and random bytes: a task spec comes from a requester, and a
node either reads it or refuses it with SpecError naming the field, never another exception."""

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.workers.fuzzing import FUZZ, damaged, edited_json, every_cut, parses_or_rejects, random_bytes
from workers.spec import DEMO_CARTPOLE, SpecError, parse

VALID = DEMO_CARTPOLE.to_bytes()


def test_every_truncated_spec_is_refused():
    every_cut(parse, VALID, SpecError)


@FUZZ
@given(data=st.data())
def test_a_damaged_spec_is_read_or_refused(data):
    parses_or_rejects(parse, data.draw(damaged(VALID)), SpecError)


@FUZZ
@given(data=st.data())
def test_a_spec_with_any_values_is_read_or_refused(data):
    edited = data.draw(edited_json(json.loads(VALID)))
    parses_or_rejects(parse, json.dumps(edited).encode(), SpecError)


@FUZZ
@given(blob=random_bytes(b'{"') | random_bytes())
def test_random_bytes_are_refused(blob):
    parses_or_rejects(parse, blob, SpecError)
