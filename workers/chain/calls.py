"""Contract reads without web3.py's per-call costs, for the reads every handler makes.

`contract.functions.f(*args).call()` matches the call against the contract's whole ABI (a keccak
per entry) and then runs web3.py's normalizers over every decoded value: StateView.taskOf's
27-field struct took 7.2 ms of CPU on an idle machine (3.3 ms here), and in a profile of a claim
under load reading the task was its largest step.
A ViewCall keeps the function's selector, types and result shape from the start, encodes and
decodes with eth_abi, and sends the eth_call raw (workers.chain.rpc.raw_request: web3.py's
middleware and formatters took most of a read's CPU, ~4x the request itself, in a validator
under load); an error answer is asked again through `w3.eth.call`, so a revert raises web3.py's
ContractLogicError with its data exactly as before. Values come back as workers.chain.abi's
typed_value gives them (protocol enums, checksummed addresses); a struct as a named tuple."""
from __future__ import annotations

from collections import namedtuple

from eth_abi import decode, encode
from eth_utils import function_abi_to_4byte_selector
from web3.exceptions import Web3RPCError

from workers.chain.abi import canonical_type, typed_value
from workers.chain.rpc import raw_request


class ViewCall:
    """`ViewCall(contract, "taskOf")(task_id)`: one function of a web3 contract, read at `block`
    ("latest" unless said otherwise)."""

    def __init__(self, contract, name: str, block: str = "latest"):
        items = [i for i in contract.abi if i.get("type") == "function" and i.get("name") == name]
        if len(items) != 1:
            raise ValueError(f"{name!r}: {len(items)} functions of that name in the contract's ABI, need exactly 1")
        item = items[0]
        self.w3, self.address = contract.w3, contract.address
        self._selector = function_abi_to_4byte_selector(item)
        self._inputs = [canonical_type(i) for i in item["inputs"]]
        self._outputs = item["outputs"]
        self._output_types = [canonical_type(o) for o in self._outputs]
        self._shapes = {}
        self.block = block

    def __call__(self, *args):
        call = {"to": self.address, "data": "0x" + (self._selector + encode(self._inputs, args)).hex()}
        try:
            result = bytes.fromhex(raw_request(self.w3, "eth_call", [call, self.block])[2:])
        except Web3RPCError:
            # a revert (or another error answer): ask again through web3.py, which raises it as
            # before (ContractLogicError with the revert data); rare, so its cost does not matter
            result = bytes(self.w3.eth.call(call, self.block))
        values = decode(self._output_types, result)
        typed = [self._typed(spec, value) for spec, value in zip(self._outputs, values, strict=True)]
        return typed[0] if len(typed) == 1 else tuple(typed)

    def _typed(self, spec: dict, value):
        kind = spec["type"]
        if kind.endswith("]"):  # an array: each element has the spec without its last dimension
            element = {**spec, "type": kind[:kind.rindex("[")]}
            return [self._typed(element, v) for v in value]
        if kind == "tuple":
            components = spec["components"]
            shape = self._shape(spec)
            return shape(*(self._typed(c, v) for c, v in zip(components, value, strict=True)))
        return typed_value(spec, value)

    def _shape(self, spec: dict):
        """The named tuple of a struct, made once per struct type."""
        key = spec.get("internalType") or canonical_type(spec)
        if key not in self._shapes:
            name = key.rsplit(".", 1)[-1].replace("struct ", "").strip() or "Struct"
            self._shapes[key] = namedtuple(name if name.isidentifier() else "Struct",
                                           [c["name"] for c in spec["components"]])
        return self._shapes[key]
