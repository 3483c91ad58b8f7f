"""docs/integrating.md's enum tables are the Solidity enums (tools/enum_tables.py generates them),
and they agree with the protocol enums the workers decode events with."""

from tools.enum_tables import DOC, doc_tables, solidity_enum, tables
from workers.chain.abi import ENUMS


def test_the_docs_enum_tables_are_generated_from_the_contracts():
    assert doc_tables(DOC.read_text()) == tables(), "stale enum tables: run `python tools/enum_tables.py --write`"


def test_every_documented_value_is_the_protocol_enums_value():
    for qualified, enum in ENUMS.items():
        solidity = [member.lower() for member, _ in solidity_enum(qualified)]
        assert solidity == [m.replace("_", "").lower() for m in enum.__members__], qualified


def test_a_task_that_ended_without_a_result_is_status_7():
    assert "| 7 | NoResult | the last round was finalized and no round's checkpoint was ever accepted |" \
        in DOC.read_text()
