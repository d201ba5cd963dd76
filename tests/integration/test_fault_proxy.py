"""FaultProxy against a local echo server: pass-through, blackhole (bytes held, connections open),
heal with the held bytes delivered late or dropped, reset (RST on both sides), and connections
opened during a fault. Fast: no process is started; the short read timeouts are "nothing
arrives during this window" checks.
"""

from __future__ import annotations

import socket
import threading
import unittest

from fault_proxy import FaultProxy
from tenure_testlib import wait_until

QUIET = 0.3  # a read that must NOT complete waits this long


class EchoServer:
    """Echoes every byte back on each connection; counts the bytes it received."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.received = 0
        self.connections = 0
        self.resets = 0  # connections that ended with ECONNRESET on the server side
        self.lock = threading.Lock()
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
                self.conns.append(conn)
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    def _echo(self, conn: socket.socket) -> None:
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    conn.shutdown(socket.SHUT_WR)
                    return
                with self.lock:
                    self.received += len(data)
                conn.sendall(data)
        except ConnectionResetError:
            with self.lock:
                self.resets += 1
        except OSError:
            return

    def close(self) -> None:
        self.sock.close()
        with self.lock:
            for c in self.conns:
                try:
                    c.close()
                except OSError:
                    pass


def recv_exactly(sock: socket.socket, n: int, timeout: float = 5.0) -> bytes:
    sock.settimeout(timeout)
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise AssertionError(f"EOF after {out!r}")
        out += chunk
    return out


class FaultProxyTest(unittest.TestCase):
    def setUp(self) -> None:
        self.echo = EchoServer()
        self.addCleanup(self.echo.close)
        self.proxy = FaultProxy("127.0.0.1", self.echo.port, name="test")
        self.addCleanup(self.proxy.close)

    def connect(self) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.proxy.port), timeout=5)
        self.addCleanup(s.close)
        return s

    def connect_expecting_reset(self, port: int, rst: bool) -> None:
        """Connects to a proxy that resets connections: the RST may come after connect() returned
        (then the first read sees it) or, on a loaded machine, before it (connect() fails)."""
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
        except ConnectionResetError:
            return
        self.addCleanup(s.close)
        if rst:
            self.assert_rst(s)
        else:
            self.assert_reset(s)

    def assert_silent(self, s: socket.socket) -> None:
        """No byte and no EOF arrives within QUIET: the connection is open and silent."""
        s.settimeout(QUIET)
        with self.assertRaises(socket.timeout):
            data = s.recv(100)
            self.fail(f"received {data!r} through a blackhole")

    def assert_reset(self, s: socket.socket) -> None:
        """The connection was reset (or at least closed): ECONNRESET, or EOF, or a failed send."""
        s.settimeout(5)
        try:
            data = s.recv(100)
        except (ConnectionResetError, BrokenPipeError):
            return
        self.assertEqual(data, b"", "expected EOF or a reset, got data")

    def assert_rst(self, s: socket.socket) -> None:
        """The connection was reset with RST (not closed with FIN)."""
        s.settimeout(5)
        with self.assertRaises(ConnectionResetError):
            data = s.recv(100)
            self.fail(f"expected a reset, got {data!r}")

    def test_pass_through_echoes(self) -> None:
        s = self.connect()
        s.sendall(b"hello")
        self.assertEqual(recv_exactly(s, 5), b"hello")
        big = bytes(range(256)) * 4096  # 1 MiB, more than one buffer
        threading.Thread(target=s.sendall, args=(big,), daemon=True).start()
        self.assertEqual(recv_exactly(s, len(big), timeout=10), big)
        # EOF is passed on as a half close, and the server's EOF comes back.
        s.shutdown(socket.SHUT_WR)
        s.settimeout(5)
        self.assertEqual(s.recv(10), b"")

    def test_blackhole_holds_bytes_and_heal_delivers_them_in_order(self) -> None:
        s = self.connect()
        s.sendall(b"before")
        self.assertEqual(recv_exactly(s, 6), b"before")
        self.proxy.blackhole()
        base = self.echo.received
        s.sendall(b"held-1;")
        s.sendall(b"held-2;")
        self.assert_silent(s)
        wait_until(lambda: self.proxy.held_bytes() == 14, 5, "the proxy to hold the 14 bytes")
        self.assertEqual(self.echo.received, base, "the server received bytes through a blackhole")
        self.assertEqual(self.proxy.open_connections(), 1)
        self.proxy.heal(deliver_held=True)
        self.assertEqual(recv_exactly(s, 14), b"held-1;held-2;")
        s.sendall(b"after")
        self.assertEqual(recv_exactly(s, 5), b"after")

    def test_blackhole_holds_the_answer_direction_too(self) -> None:
        s = self.connect()
        s.sendall(b"ping")
        self.assertEqual(recv_exactly(s, 4), b"ping")
        # The server writes by itself while blackholed: its bytes are held, not delivered.
        self.proxy.blackhole()
        with self.echo.lock:
            server_side = self.echo.conns[-1]
        server_side.sendall(b"from-server")
        self.assert_silent(s)
        wait_until(lambda: self.proxy.held_bytes() == 11, 5, "the server's bytes held")
        self.proxy.heal(deliver_held=True)
        self.assertEqual(recv_exactly(s, 11), b"from-server")

    def test_heal_without_delivery_drops_and_resets(self) -> None:
        s = self.connect()
        s.sendall(b"x")
        recv_exactly(s, 1)
        self.proxy.blackhole()
        base = self.echo.received
        s.sendall(b"dropped")
        wait_until(lambda: self.proxy.held_bytes() == 7, 5, "the bytes held")
        self.proxy.heal(deliver_held=False)
        self.assert_reset(s)
        self.assertEqual(self.echo.received, base, "dropped bytes reached the server")
        t = self.connect()
        t.sendall(b"fresh")
        self.assertEqual(recv_exactly(t, 5), b"fresh")

    def test_reset_resets_open_and_new_connections(self) -> None:
        s = self.connect()
        s.sendall(b"x")
        recv_exactly(s, 1)
        self.proxy.reset()
        self.assert_rst(s)
        wait_until(lambda: self.echo.resets == 1, 5, "the server side to be reset too")
        self.assertEqual(self.proxy.open_connections(), 0)
        # A connection made while resetting is accepted and reset at once.
        self.connect_expecting_reset(self.proxy.port, rst=True)
        self.proxy.heal(deliver_held=True)
        u = self.connect()
        u.sendall(b"works")
        self.assertEqual(recv_exactly(u, 5), b"works")

    def test_connections_opened_during_blackhole_work_after_heal(self) -> None:
        self.proxy.blackhole()
        s = self.connect()
        s.sendall(b"early")
        self.assert_silent(s)
        wait_until(lambda: self.echo.connections == 1, 5, "the held connection to be connected upstream")
        self.assertEqual(self.echo.received, 0)
        self.proxy.heal(deliver_held=True)
        self.assertEqual(recv_exactly(s, 5), b"early")
        s.sendall(b"later")
        self.assertEqual(recv_exactly(s, 5), b"later")

    def test_upstream_down_resets_the_client(self) -> None:
        dead = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        dead.bind(("127.0.0.1", 0))
        port = dead.getsockname()[1]
        dead.close()  # nothing listens there now
        with FaultProxy("127.0.0.1", port) as p:
            self.connect_expecting_reset(p.port, rst=False)


if __name__ == "__main__":
    unittest.main()
