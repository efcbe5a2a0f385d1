"""Fixtures: a real `syncworker serve` process on a free port, and a TCP proxy the test can cut."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import threading
from pathlib import Path
from typing import Iterator, List

import pytest

def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


# SIGTERM (a runner's timeout) becomes an interrupt, so fixtures still stop the servers they started.
signal.signal(signal.SIGTERM, _interrupt)

REPO_ROOT = Path(os.environ.get("SYNCWORKER_REPO", Path(__file__).resolve().parents[3]))


def payload(version: str) -> str:
    return str(REPO_ROOT / "examples" / "payloads" / f"demo-{version}")


@pytest.fixture
def server_address(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    # A slower embedded operator stretches a sync over seconds, so a cut lands mid-sync. A state
    # directory of its own keeps each server from resuming another's state.
    # The program from the sources through tsx (the repository's dev dependency), as the repository's tests run it.
    args = ["node", "--import", "tsx", str(REPO_ROOT / "src" / "cli" / "bin.ts"), "serve", "--listen", "127.0.0.1:0",
            "--reconcile-interval", "60s", "--operator-delay", "300ms", "--state-dir", str(tmp_path / "state")]
    # Indirect parametrization passes a function of the test's tmp_path that returns more `serve` arguments.
    args += getattr(request, "param", lambda _: [])(tmp_path)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        address = ""
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("listening on "):
                address = line.removeprefix("listening on ").strip()
                break
        assert address, "syncworker exited before listening"
        # Keep draining stdout so the server never blocks on a full pipe.
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        yield address
    finally:
        proc.terminate()
        proc.wait(timeout=30)


class Proxy:
    """Loopback TCP proxy: ``cut()`` resets every open connection, as a failed network path would."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self._target = (host, int(port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = "127.0.0.1:%d" % self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: List[socket.socket] = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            with self._lock:
                self._open += [client, upstream]
                self.accepted += 1
            threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            for sock in self._open:
                # Linger 0 makes the final close send RST, as a failed network path would. shutdown() first:
                # close() alone neither wakes the pipe thread blocked in recv() nor ends the connection.
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self._open = []

    def close(self) -> None:
        self._listener.close()
        self.cut()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture
def proxy(server_address: str) -> Iterator[Proxy]:
    p = Proxy(server_address)
    yield p
    p.close()
