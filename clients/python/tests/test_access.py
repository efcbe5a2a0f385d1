"""The Python client against servers that require a client certificate (mTLS) or bearer tokens: refusals are
UnauthenticatedError or PermissionDeniedError, the right credentials work."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import List

import pytest

from conftest import REPO_ROOT, payload
from syncworker_client import Client, PermissionDeniedError, UnauthenticatedError

WRITER_TOKEN = "writer-token-0123456789"
READER_TOKEN = "reader-token-0123456789"


def pki(tmp_path: Path) -> Path:
    """The repository's test certificates (test/harness/tls-pki.sh, openssl), made once per test."""
    directory = tmp_path / "pki"
    if not directory.exists():
        subprocess.run(["sh", str(REPO_ROOT / "test" / "harness" / "tls-pki.sh"), str(directory)], check=True)
    return directory


def mtls_args(tmp_path: Path) -> List[str]:
    d = pki(tmp_path)
    return ["--tls-cert", str(d / "server.crt"), "--tls-key", str(d / "server.key"), "--client-ca", str(d / "ca.crt")]


def token_args(tmp_path: Path) -> List[str]:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text(f"{WRITER_TOKEN},alice,writer\n{READER_TOKEN},bob,reader\n")
    return ["--token-file", str(tokens)]


@pytest.mark.parametrize("server_address", [mtls_args], indirect=True)
def test_mutual_tls(server_address: str, tmp_path: Path) -> None:
    d = pki(tmp_path)
    ca = (d / "ca.crt").read_bytes()
    with Client(server_address, root_certificates=ca, timeout=10) as client:
        with pytest.raises(UnauthenticatedError, match="client certificate"):
            client.get_status()
    other = dict(private_key=(d / "other.key").read_bytes(), certificate_chain=(d / "other.crt").read_bytes())
    with Client(server_address, root_certificates=ca, timeout=10, **other) as client:
        with pytest.raises(UnauthenticatedError):
            client.update(payload("1.0.0"))
    good = dict(private_key=(d / "client.key").read_bytes(), certificate_chain=(d / "client.crt").read_bytes())
    with Client(server_address, root_certificates=ca, server_name="syncworker.test", timeout=10, **good) as client:
        assert client.update(payload("1.0.0"), generation=1).generation == 1
        assert client.get_status().generation == 1


@pytest.mark.parametrize("server_address", [token_args], indirect=True)
def test_bearer_tokens(server_address: str) -> None:
    with Client(server_address, timeout=10) as client:
        with pytest.raises(UnauthenticatedError, match="needs a bearer token"):
            client.get_status()
    with Client(server_address, token="not-a-token-at-all", timeout=10) as client:
        with pytest.raises(UnauthenticatedError):
            client.get_status()
    with Client(server_address, token=READER_TOKEN, timeout=10) as client:
        assert client.get_status().generation == 0
        with pytest.raises(PermissionDeniedError, match="needs the writer role"):
            client.update(payload("1.0.0"), generation=1)
        # A reader may watch.
        assert next(client.watch(timeout=10)).revision > 0
    with Client(server_address, token=WRITER_TOKEN, timeout=10) as client:
        assert client.update(payload("1.0.0"), generation=1).generation == 1
