"""A TCP forwarder on 127.0.0.1 that injects network faults between a client and one server.

Standard library only (Python 3.11). Bytes are forwarded as they are, so TLS, HTTP/1.1 and
gRPC over HTTP/2 pass through untouched. One thread runs a selector loop for every connection
pair; the public methods are thread safe and take effect before they return.

Modes (switchable at any time):
- pass_through() (the default): bytes flow both ways; an EOF is passed on as a half close, a
  reset from one side resets the other.
- blackhole(): every connection stays open, but no byte passes in either direction. Bytes read
  from either side are HELD in per-direction buffers (and so is an EOF); new connections are
  accepted and connected upstream, and held too. No FIN or RST passes: the peers see silence,
  as behind a partition that drops packets.
- reset(): every open connection is closed with RST on both sides (SO_LINGER 0), held bytes are
  dropped, and new connections are accepted and reset at once (a partition that answers RST).
- heal(deliver_held): back to pass-through. deliver_held=True first delivers the held bytes in
  order (a partition that heals with its packets delivered late); False drops them and resets
  the connections that were held.
- close(): stop listening, close every connection, join the thread.
"""

from __future__ import annotations

import errno
import selectors
import socket
import struct
import threading
import time
from typing import Callable

PASS, BLACKHOLE, RESET = "pass", "blackhole", "reset"
UP, DOWN = 0, 1  # UP: client -> upstream, DOWN: upstream -> client
BUFFER_LIMIT = 4 << 20  # per direction: beyond it the proxy stops reading (the sender blocks)
_CHUNK = 65536


def _rst(sock: socket.socket | None) -> None:
    """Close with RST instead of FIN."""
    if sock is None:
        return
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class _Pair:
    """One accepted client connection and its upstream connection."""

    def __init__(self, client: socket.socket, upstream: socket.socket) -> None:
        self.client = client
        self.upstream = upstream
        self.connecting = True
        self.upstream_failed = False
        self.buf = (bytearray(), bytearray())  # bytes read from the source, not yet delivered
        self.eof = [False, False]  # the source of this direction sent EOF
        self.shut = [False, False]  # that EOF was passed on (SHUT_WR on the destination)
        self.peer_reset = False  # one side reset while the pair was held
        self.registered: dict[socket.socket, int] = {}

    def src(self, d: int) -> socket.socket:
        return self.client if d == UP else self.upstream

    def dst(self, d: int) -> socket.socket:
        return self.upstream if d == UP else self.client


class FaultProxy:
    """Forwards 127.0.0.1:port to target_host:target_port; see the module docstring for the modes.

    Guarantees: once blackhole() returned, no byte, FIN or RST reaches either peer until heal();
    once reset() returned, every connection open before it was reset on both sides; heal(True)
    delivers held bytes in the order they were read, before any byte read later.
    """

    def __init__(self, target_host: str, target_port: int, name: str = "") -> None:
        self.target = (target_host, target_port)
        self.name = name or f"proxy->{target_host}:{target_port}"
        self._mode = PASS
        self._lock = threading.Lock()
        self._commands: list[tuple[Callable[[], object], threading.Event, list]] = []
        self._pairs: list[_Pair] = []
        self._sel = selectors.DefaultSelector()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.setblocking(False)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._sel.register(self._listener, selectors.EVENT_READ, "listen")
        self._sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._closing = False
        # Counters, read without the loop's help (monotonic seconds, bytes).
        self.accepted = 0
        self.forwarded = [0, 0]
        self.last_read = [0.0, 0.0]  # time.monotonic() of the last bytes read per direction
        self._thread = threading.Thread(target=self._loop, daemon=True, name=f"fault proxy {self.name}")
        self._thread.start()

    # -- public API ----------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._listener.getsockname()[1]

    @property
    def mode(self) -> str:
        return self._mode

    def pass_through(self) -> None:
        """Forward both ways (held bytes, if any, are delivered first)."""
        self._call(lambda: self._set_mode(PASS))

    def blackhole(self) -> None:
        self._call(lambda: self._set_mode(BLACKHOLE))

    def reset(self) -> None:
        self._call(self._do_reset)

    def heal(self, deliver_held: bool) -> None:
        def do() -> None:
            if not deliver_held:
                for p in list(self._pairs):
                    self._drop(p, rst=True)
            self._set_mode(PASS)
        self._call(do)

    def held_bytes(self) -> int:
        """Bytes read but not delivered (all of them are held while blackholed)."""
        return self._call(lambda: sum(len(p.buf[UP]) + len(p.buf[DOWN]) for p in self._pairs))

    def open_connections(self) -> int:
        return self._call(lambda: len(self._pairs))

    def close(self) -> None:
        if self._closing:
            return
        with self._lock:
            self._closing = True
        self._wake()
        self._thread.join(timeout=10)

    def __enter__(self) -> "FaultProxy":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- commands run on the loop thread -------------------------------------------------------
    def _call(self, fn: Callable[[], object]) -> object:
        if threading.current_thread() is self._thread:
            return fn()
        done = threading.Event()
        box: list = []
        with self._lock:
            if self._closing:
                raise RuntimeError(f"{self.name} is closed")
            self._commands.append((fn, done, box))
        self._wake()
        if not done.wait(timeout=30):
            raise RuntimeError(f"{self.name}: the proxy loop did not answer within 30 s")
        if box and isinstance(box[0], BaseException):
            raise box[0]
        return box[0] if box else None

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except (BlockingIOError, OSError):
            pass  # already woken (buffer full) or closed

    def _set_mode(self, mode: str) -> None:
        self._mode = mode
        if mode == PASS:
            for p in list(self._pairs):
                if p.peer_reset or (p.upstream_failed and not p.connecting):
                    self._drop(p, rst=True)
                    continue
                for d in (UP, DOWN):
                    self._flush(p, d)
        for p in list(self._pairs):
            self._update(p)

    def _do_reset(self) -> None:
        self._mode = RESET
        for p in list(self._pairs):
            self._drop(p, rst=True)

    # -- the loop ------------------------------------------------------------------------------
    def _loop(self) -> None:
        try:
            while True:
                with self._lock:
                    commands, self._commands = self._commands, []
                    closing = self._closing
                for fn, done, box in commands:
                    try:
                        box.append(fn())
                    except BaseException as e:  # noqa: BLE001 - handed to the caller
                        box.append(e)
                    done.set()
                if closing:
                    break
                for key, mask in self._sel.select(timeout=1.0):
                    tag = key.data
                    if tag == "wake":
                        try:
                            while self._wake_r.recv(4096):
                                pass
                        except (BlockingIOError, OSError):
                            pass
                    elif tag == "listen":
                        self._accept()
                    else:
                        pair, sock = tag
                        if pair in self._pairs:
                            self._ready(pair, sock, mask)
        finally:
            for p in list(self._pairs):
                self._drop(p, rst=True)
            with self._lock:
                commands, self._commands = self._commands, []
            for _, done, box in commands:
                box.append(RuntimeError(f"{self.name} is closed"))
                done.set()
            self._sel.close()
            for s in (self._listener, self._wake_r, self._wake_w):
                s.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            self.accepted += 1
            if self._mode == RESET:
                _rst(client)
                continue
            client.setblocking(False)
            up = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            up.setblocking(False)
            for s in (client, up):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pair = _Pair(client, up)
            self._pairs.append(pair)
            err = up.connect_ex(self.target)
            if err not in (0, errno.EINPROGRESS, errno.EWOULDBLOCK):
                self._upstream_failed(pair)
            self._update(pair)

    def _upstream_failed(self, pair: _Pair) -> None:
        pair.connecting = False
        pair.upstream_failed = True
        if self._mode == PASS:
            self._drop(pair, rst=True)
        # Held (blackhole): the client sees silence until heal() resets it.

    def _ready(self, pair: _Pair, sock: socket.socket, mask: int) -> None:
        if sock is pair.upstream and pair.connecting:
            if mask & selectors.EVENT_WRITE:
                err = pair.upstream.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    self._upstream_failed(pair)
                    if pair in self._pairs:
                        self._update(pair)
                    return
                pair.connecting = False
                self._flush(pair, UP)
            if pair in self._pairs:
                self._update(pair)
            return
        d_in = UP if sock is pair.client else DOWN
        if mask & selectors.EVENT_READ:
            self._read(pair, d_in)
        if pair not in self._pairs:
            return
        if mask & selectors.EVENT_WRITE:
            # sock is the destination of the other direction
            self._flush(pair, DOWN if sock is pair.client else UP)
        if pair in self._pairs:
            self._update(pair)

    def _read(self, pair: _Pair, d: int) -> None:
        try:
            data = pair.src(d).recv(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # ECONNRESET and friends
            if self._mode == PASS:
                self._drop(pair, rst=True)
            else:
                pair.peer_reset = True  # held: nothing passes, reset at heal
                pair.eof[d] = True
            return
        if not data:
            pair.eof[d] = True
        else:
            pair.buf[d].extend(data)
            self.last_read[d] = time.monotonic()
        self._flush(pair, d)

    def _flush(self, pair: _Pair, d: int) -> None:
        """Deliver direction d's buffer (and a pending EOF) when passing."""
        if self._mode != PASS or pair not in self._pairs:
            return
        if pair.connecting or pair.upstream_failed:
            return
        buf = pair.buf[d]
        dst = pair.dst(d)
        while buf:
            try:
                n = dst.send(buf)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._drop(pair, rst=True)
                return
            self.forwarded[d] += n
            del buf[:n]
        if pair.eof[d] and not pair.shut[d]:
            pair.shut[d] = True
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        if pair.shut[UP] and pair.shut[DOWN]:
            self._drop(pair, rst=False)

    def _update(self, pair: _Pair) -> None:
        """Register each socket for what it needs: reading while its buffer has room, writing
        while passing with bytes (or an EOF) to deliver, the upstream's connect completion."""
        want: dict[socket.socket, int] = {pair.client: 0, pair.upstream: 0}
        passing = self._mode == PASS and not pair.upstream_failed
        if not pair.eof[UP] and len(pair.buf[UP]) < BUFFER_LIMIT:
            want[pair.client] |= selectors.EVENT_READ
        if pair.connecting:
            want[pair.upstream] |= selectors.EVENT_WRITE
        elif not pair.upstream_failed:
            if not pair.eof[DOWN] and len(pair.buf[DOWN]) < BUFFER_LIMIT:
                want[pair.upstream] |= selectors.EVENT_READ
            if passing and pair.buf[UP]:
                want[pair.upstream] |= selectors.EVENT_WRITE
        if passing and not pair.connecting and pair.buf[DOWN]:
            want[pair.client] |= selectors.EVENT_WRITE
        for sock, events in want.items():
            old = pair.registered.get(sock, 0)
            if events == old:
                continue
            try:
                if old == 0:
                    self._sel.register(sock, events, (pair, sock))
                elif events == 0:
                    self._sel.unregister(sock)
                else:
                    self._sel.modify(sock, events, (pair, sock))
            except (KeyError, ValueError, OSError):
                continue
            pair.registered[sock] = events

    def _drop(self, pair: _Pair, rst: bool) -> None:
        if pair not in self._pairs:
            return
        self._pairs.remove(pair)
        for sock, events in pair.registered.items():
            if events:
                try:
                    self._sel.unregister(sock)
                except (KeyError, ValueError, OSError):
                    pass
        pair.registered.clear()
        for sock in (pair.client, pair.upstream):
            if rst:
                _rst(sock)
            else:
                try:
                    sock.close()
                except OSError:
                    pass
