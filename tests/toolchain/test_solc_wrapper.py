"""The solc-js wrapper (tools/solc) answers like native solc 0.8.30.

Plain pytest: needs node and `npm install` (node_modules/solc, @openzeppelin/contracts), no chain.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLC = ROOT / "tools" / "solc" / "solc"
OZ = ROOT / "node_modules" / "@openzeppelin"

TOKEN = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract Token is ERC20 {
    constructor() ERC20("Token", "TOK") { _mint(msg.sender, 1e18); }
}
"""



@pytest.fixture(autouse=True)
def _toolchain_installed():
    # A missing install is a failure that says what to do, never a skip.
    assert OZ.is_dir(), "node_modules/@openzeppelin is missing: run `make setup` (npm install) first"


def solc(*args, stdin=None, cwd=ROOT):
    return subprocess.run(
        [str(SOLC), *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=300
    )


def standard_json(sources, outputs=("abi", "evm.bytecode.object"), source_outputs=()):
    request = {
        "language": "Solidity",
        "sources": {name: {"content": text} for name, text in sources.items()},
        "settings": {
            "remappings": ["@openzeppelin/=node_modules/@openzeppelin/"],
            "optimizer": {"enabled": True, "runs": 200},
            "evmVersion": "prague",
            "outputSelection": {"*": {"*": list(outputs), "": list(source_outputs)}},
        },
    }
    proc = solc("--standard-json", "--base-path", str(ROOT), "--allow-paths", str(ROOT),
                stdin=json.dumps(request))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def errors(output):
    return [e for e in output.get("errors", []) if e["severity"] == "error"]


def test_version_line_matches_native_format():
    proc = solc("--version")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert re.fullmatch(r"Version: 0\.8\.30\+commit\.73712a01\.Linux\.g\+\+", lines[-1])


def test_standard_json_resolves_openzeppelin_through_remapping():
    output = json.loads(standard_json({"contracts/Token.sol": TOKEN}))
    assert errors(output) == []
    bytecode = output["contracts"]["contracts/Token.sol"]["Token"]["evm"]["bytecode"]["object"]
    assert re.fullmatch(r"[0-9a-f]+", bytecode) and len(bytecode) > 1000
    assert "node_modules/@openzeppelin/contracts/token/ERC20/ERC20.sol" in output["sources"]


def test_combined_json_has_native_shape(tmp_path):
    (tmp_path / "Token.sol").write_text(TOKEN)
    proc = solc(
        "--combined-json", "abi,bin,bin-runtime,srcmap,srcmap-runtime,ast,hashes",
        "--optimize", f"@openzeppelin={OZ}", "Token.sol", cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    output = json.loads(proc.stdout)
    assert output["version"] == "0.8.30+commit.73712a01.Linux.g++"
    token = output["contracts"]["Token.sol:Token"]
    assert {"abi", "bin", "bin-runtime", "srcmap", "srcmap-runtime", "hashes"} <= set(token)
    assert any(item.get("name") == "transfer" for item in token["abi"])
    assert token["hashes"]["transfer(address,uint256)"] == "a9059cbb"
    assert output["sourceList"][0] in output["sources"]
    assert output["sources"]["Token.sol"]["AST"]["nodeType"] == "SourceUnit"


def test_large_output_is_not_truncated():
    text = standard_json(
        {"contracts/Token.sol": TOKEN},
        outputs=("abi", "evm.bytecode", "evm.deployedBytecode", "evm.legacyAssembly", "metadata"),
        source_outputs=("ast",),
    )
    assert len(text.encode()) > 4 * 65536
    output = json.loads(text)  # raises on a cut document
    assert errors(output) == []


def test_syntax_error_is_reported_in_json():
    output = json.loads(standard_json({"Bad.sol": "pragma solidity ^0.8.0;\ncontract Bad {"}))
    found = errors(output)
    assert found and found[0]["type"] == "ParserError"
    assert "contracts" not in output or not output["contracts"]


def test_py_solc_x_finds_solc_0_8_30():
    solcx = pytest.importorskip("solcx")
    assert "0.8.30" in {str(v) for v in solcx.get_installed_solc_versions()}
    compiled = solcx.compile_source(
        "pragma solidity ^0.8.0; contract C { function f() external pure returns (uint) { return 7; } }",
        output_values=["abi", "bin"], solc_version="0.8.30",
    )
    assert compiled["<stdin>:C"]["bin"]
