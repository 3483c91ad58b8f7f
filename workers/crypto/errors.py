"""Errors of workers.crypto. Messages say what is wrong and what to do; they never contain a key,
a shared secret or plaintext."""


class CryptoError(Exception):
    """Base of this package's errors."""


class TamperedCiphertext(CryptoError):
    """An AES-GCM tag did not verify: the ciphertext, its nonce, its tag or its associated data
    (task, node, chain) were altered, or the key is not the one it was sealed with."""


class KeyCommitmentMismatch(CryptoError):
    """A data key does not match the commitment published with the ciphertext (a requester gave
    this node another key than the one the commitment names)."""


class NotRequester(CryptoError):
    """Only the task's requester can wrap its data key and post its keyring."""


class NotAssigned(CryptoError):
    """The node holds no slot in the task: it gets no key."""


class NoKeyForNode(CryptoError):
    """The task's keyring has no entry for this node (yet): the requester posts a new keyring
    after every assignment change."""


class KeyringNotPosted(CryptoError):
    """The requester has not posted a keyring for the task yet."""


class WrongTask(CryptoError):
    """A keyring or wrapped key made for another task, chain or registry."""


class NoPublicKey(CryptoError):
    """A node's public key cannot be recovered from the chain (it sent no transaction this RPC
    can return, or signs through a contract wallet)."""


class MalformedKeyring(CryptoError):
    """A keyring document that is not valid JSON of the expected layout."""
