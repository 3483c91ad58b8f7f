"""workers.chain.keystore: encrypted (scrypt) keystores, 0600, password from the caller or the
environment; wrong passwords and loose permissions are clear errors; nothing secret is printed."""

import logging
import stat

import pytest
from eth_account import Account

from workers.chain.keystore import (
    PASSWORD_ENV,
    KeystoreError,
    WrongPassword,
    create_keystore,
    find_keystore,
    load_account,
)

FAST = 2**10  # scrypt cost for tests; the default is 2**18


def test_create_writes_an_encrypted_0600_file_that_loads_back(tmp_path):
    path = create_keystore(tmp_path / "node", "s3cret-pw", scrypt_n=FAST)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert '"kdf": "scrypt"' in path.read_text()
    account = load_account(path, "s3cret-pw")
    assert path.name == f"{account.address}.json"
    assert find_keystore(tmp_path / "node") == path


def test_import_keeps_the_key_and_never_writes_it_in_clear(tmp_path):
    key = Account.create().key
    path = create_keystore(tmp_path, "pw-import", private_key=key, scrypt_n=FAST)
    assert key.hex() not in path.read_text() and "pw-import" not in path.read_text()
    assert load_account(path, "pw-import").key == key


def test_wrong_password_is_a_clear_error_without_secrets(tmp_path):
    path = create_keystore(tmp_path, "right-password", scrypt_n=FAST)
    with pytest.raises(WrongPassword, match=f"wrong password for keystore {path}") as info:
        load_account(path, "wrong-password")
    assert "right-password" not in str(info.value) and "wrong-password" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_password_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, "from-env")
    path = create_keystore(tmp_path, scrypt_n=FAST)
    assert load_account(path).address == path.stem
    monkeypatch.delenv(PASSWORD_ENV)
    with pytest.raises(KeystoreError, match=f"no keystore password: pass one or set \\${PASSWORD_ENV}"):
        load_account(path)


def test_world_readable_keystore_is_refused(tmp_path):
    path = create_keystore(tmp_path, "pw", scrypt_n=FAST)
    path.chmod(0o644)
    with pytest.raises(KeystoreError, match="readable by others .*chmod 600"):
        load_account(path, "pw")


def test_existing_account_is_not_overwritten(tmp_path):
    key = Account.create().key
    create_keystore(tmp_path, "pw", private_key=key, scrypt_n=FAST)
    with pytest.raises(KeystoreError, match="already in this node's keystore"):
        create_keystore(tmp_path, "pw", private_key=key, scrypt_n=FAST)


def test_several_keystores_need_an_address(tmp_path):
    first = create_keystore(tmp_path, "pw", scrypt_n=FAST)
    create_keystore(tmp_path, "pw", scrypt_n=FAST)
    with pytest.raises(KeystoreError, match="several keystores"):
        find_keystore(tmp_path)
    assert find_keystore(tmp_path, first.stem.lower()) == first
    with pytest.raises(KeystoreError, match="no keystore in"):
        find_keystore(tmp_path / "empty")


def test_nothing_secret_reaches_output_or_logs(tmp_path, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    key = Account.create().key
    path = create_keystore(tmp_path, "very-secret-pw", private_key=key, scrypt_n=FAST)
    account = load_account(path, "very-secret-pw")
    shown = capsys.readouterr().out + capsys.readouterr().err + caplog.text + repr(account) + str(account)
    assert key.hex() not in shown and key.hex()[2:] not in shown and "very-secret-pw" not in shown
