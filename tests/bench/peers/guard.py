"""A proxy on loopback that lets the measured agents reach loopback only.

Each agent gets ``HTTP(S)_PROXY`` pointing here: a ``CONNECT`` or a plain request to
a loopback host is passed through (some agents' HTTP clients send even loopback
traffic through the proxy), anything else is answered 403 and its host noted in
``refused``, so an agent's telemetry or update check is seen and goes nowhere.
"""

from __future__ import annotations

import ipaddress
import select
import socket
import socketserver
import threading
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

_READ = 65536


def is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LoopbackGuard:
    def __init__(self) -> None:
        self.refused: list[str] = []
        self.passed = 0
        self._lock = threading.Lock()
        guard = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                guard._handle(self.connection)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = client.recv(4096)
            if not chunk:
                return
            head += chunk
        request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = request_line.split()
        if len(parts) < 3:
            return
        method, target = parts[0], parts[1]
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            rest = head.split(b"\r\n\r\n", 1)[1]
        else:  # absolute-form: passed on in origin-form
            url = urlsplit(target)
            host, port = url.hostname or "", str(url.port or 80)
            path = (url.path or "/") + (f"?{url.query}" if url.query else "")
            origin = f"{method} {path} {parts[2]}".encode()
            rest = head.replace(request_line.encode("latin-1"), origin, 1)
        if not is_loopback(host):
            with self._lock:
                self.refused.append(host)
            client.sendall(
                b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
            return
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=30)
        except OSError:
            client.sendall(
                b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
            return
        with self._lock:
            self.passed += 1
        if method == "CONNECT":
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if rest:
            upstream.sendall(rest)
        _pipe(client, upstream)


def _pipe(a: socket.socket, b: socket.socket) -> None:
    sockets = [a, b]
    try:
        while True:
            readable, _, _ = select.select(sockets, [], [], 60)
            if not readable:
                return
            for sock in readable:
                data = sock.recv(_READ)
                if not data:
                    return
                (b if sock is a else a).sendall(data)
    except OSError:
        return
    finally:
        b.close()
