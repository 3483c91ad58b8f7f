"""The node's cryptography.

Encrypted task inputs (SPECIFICATION 5.7): AES-256-GCM envelopes (`envelope`), data keys wrapped
for each assigned node's secp256k1 key (`keywrap`), nodes' public keys recovered from their own
transactions (`pubkeys`), the keyring a requester publishes (`keyring`) and the inputs descriptor
a spec carries (`inputs`). Errors are in `errors`; none of them ever carries key material.

What the contracts check: BN254 BLS signatures (`bls`) and the messages validators sign
(`attest_messages`)."""
