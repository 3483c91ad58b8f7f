"""Encrypted keystores for a node's account (Web3 Secret Storage v3, scrypt).

Files live in <node dir>/keystore/<address>.json with mode 0600 in a 0700 folder. The password
comes from the caller (the CLI prompts for it) or from $DECENTRL_KEYSTORE_PASSWORD for
unattended runs. Neither the key nor the password is ever printed, logged or put in an error."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_utils import to_checksum_address

PASSWORD_ENV = "DECENTRL_KEYSTORE_PASSWORD"
KEYSTORE_DIR = "keystore"


class KeystoreError(Exception):
    """A keystore could not be created or loaded; the message says what to do."""


class WrongPassword(KeystoreError):
    pass


def keystore_dir(node_dir: str | Path) -> Path:
    return Path(node_dir) / KEYSTORE_DIR


def _password(password: str | None) -> str:
    if password is None:
        password = os.environ.get(PASSWORD_ENV)
    if not password:
        raise KeystoreError(f"no keystore password: pass one or set ${PASSWORD_ENV}")
    return password


def create_keystore(node_dir: str | Path, password: str | None = None, private_key=None,
                    *, scrypt_n: int | None = None) -> Path:
    """Encrypts `private_key` (a new random key when None: `node init`; given: import) into the
    node's keystore folder and returns the file's path. Refuses to overwrite an existing file.
    `scrypt_n` lowers the scrypt cost (tests only); the default is eth_account's (2**18)."""
    password = _password(password)
    account = Account.from_key(private_key) if private_key is not None else Account.create()
    folder = keystore_dir(node_dir)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    path = folder / f"{account.address}.json"
    if path.exists():
        raise KeystoreError(f"{path} already exists: account {account.address} is already in this node's keystore")
    document = Account.encrypt(account.key, password, kdf="scrypt", iterations=scrypt_n)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(document, out)
    return path


def list_keystores(node_dir: str | Path) -> list[Path]:
    folder = keystore_dir(node_dir)
    return sorted(folder.glob("0x*.json")) if folder.exists() else []


def find_keystore(node_dir: str | Path, address: str | None = None) -> Path:
    """The node's keystore file: the one for `address`, or the only one there is."""
    files = list_keystores(node_dir)
    if address is not None:
        try:
            address = to_checksum_address(address)
        except ValueError:
            raise KeystoreError(f"{address!r} is not an Ethereum address") from None
        path = keystore_dir(node_dir) / f"{address}.json"
        if not path.exists():
            raise KeystoreError(f"no keystore for {address} in {keystore_dir(node_dir)}")
        return path
    if not files:
        raise KeystoreError(f"no keystore in {keystore_dir(node_dir)}: create one with `decentrl node init`")
    if len(files) > 1:
        names = ", ".join(p.stem for p in files)
        raise KeystoreError(f"several keystores in {keystore_dir(node_dir)} ({names}): a node folder holds one "
                            "account; move the others to folders of their own")
    return files[0]


def keystore_address(path: str | Path) -> str:
    """The account a keystore file is for (read from the file; no password needed)."""
    address = json.loads(Path(path).read_text()).get("address")
    if not address:
        raise KeystoreError(f"keystore {path} does not say its address")
    return to_checksum_address(address)


def load_account(path: str | Path, password: str | None = None) -> LocalAccount:
    """Decrypts a keystore file into a signing account. A file readable by group or others is
    refused (chmod 600 it); a wrong password raises WrongPassword."""
    path = Path(path)
    if not path.exists():
        raise KeystoreError(f"keystore {path} not found")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise KeystoreError(f"keystore {path} is readable by others (mode {mode:04o}): run `chmod 600 {path}`")
    password = _password(password)
    try:
        document = json.loads(path.read_text())
    except ValueError as exc:
        raise KeystoreError(f"keystore {path} is not a keystore file (not JSON: {exc})") from None
    try:
        key = Account.decrypt(document, password)
    except ValueError as exc:
        if "MAC mismatch" in str(exc):
            raise WrongPassword(f"wrong password for keystore {path}") from None
        raise KeystoreError(f"keystore {path} cannot be decrypted: {exc}") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise KeystoreError(f"keystore {path} is not a keystore file (no {exc} in it)") from None
    account = Account.from_key(key)
    expected = document.get("address")
    if expected and to_checksum_address(expected) != account.address:
        raise KeystoreError(f"keystore {path} is for {expected} but decrypts to another account")
    return account
