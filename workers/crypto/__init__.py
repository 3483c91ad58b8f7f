"""Cryptography of the node that the contracts check: BN254 BLS signatures (bls.py) and the
messages validators sign (attest_messages.py)."""
