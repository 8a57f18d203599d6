"""A minimal QMP client (QEMU Machine Protocol, JSON lines on a socket).

    qemu_args += ['-qmp', f'unix:{path},server=on,wait=off']
    with Qmp(path) as q:
        q.cmd('query-memory-devices')
        q.wait_event('RESET', 30)
"""
import json
import socket
import time
from types import TracebackType
from typing import Any, Callable, Optional

from . import E2EError

# A QMP message (a command's reply, an event): a JSON object.
Message = dict[str, Any]
EventMatch = Callable[[Message], bool]


class QmpError(E2EError):
    """A QMP command's error reply: .error is its "error" object
    ({'class': ..., 'desc': ...}), .desc QEMU's message."""

    def __init__(self, name: str, error: object) -> None:
        super().__init__(f'QMP {name}: {error}')
        self.error = error
        self.desc = str(error.get('desc', '')) if isinstance(error, dict) else str(error)


class Qmp:
    """A connection to QEMU's QMP socket (retried for timeout seconds
    while QEMU starts).  Events that arrive are kept in self.events, in
    order, until wait_event() takes them or clear_events() drops them."""

    def __init__(self, path: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise E2EError(f'cannot connect to QMP socket {path}') from None
                time.sleep(0.1)
        self.sock.settimeout(timeout)
        self._buf = b''
        self.events: list[Message] = []
        try:
            self._recv()                       # greeting
            self.cmd('qmp_capabilities')
        except BaseException:
            self.sock.close()
            raise

    def __enter__(self) -> 'Qmp':
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()

    def _recv(self) -> Message:
        while b'\n' not in self._buf:
            try:
                data = self.sock.recv(65536)
            except OSError as err:
                if isinstance(err, socket.timeout):
                    raise
                raise E2EError(f'QMP connection: {err}') from None
            if not data:
                raise E2EError('QMP connection closed')
            self._buf += data
        line, self._buf = self._buf.split(b'\n', 1)
        msg = json.loads(line)
        if not isinstance(msg, dict):
            raise E2EError(f'QMP: not a JSON object: {line!r}')
        return msg

    def cmd(self, name: str, **args: Any) -> Any:
        """Execute a command; returns its "return" value, QmpError (an
        E2EError) on an error reply.  Events received meanwhile are kept."""
        msg: Message = {'execute': name}
        if args:
            msg['arguments'] = args
        try:
            self.sock.sendall(json.dumps(msg).encode() + b'\n')
        except OSError as err:      # QEMU is gone (BrokenPipeError, ...)
            raise E2EError(f'QMP connection: {err}') from None
        while True:
            reply = self._recv()
            if 'event' in reply:
                self.events.append(reply)
                continue
            if 'error' in reply:
                raise QmpError(name, reply['error'])
            return reply.get('return')

    def clear_events(self, match: Optional[EventMatch] = None) -> list[Message]:
        """Drop the events received so far (those for which match(event) is
        true, if given); returns them."""
        dropped = [e for e in self.events if match is None or match(e)]
        self.events = [e for e in self.events if not (match is None or match(e))]
        return dropped

    def wait_event(self, name: str, timeout: float,
                   match: Optional[EventMatch] = None) -> Optional[Message]:
        """Wait for an event called name (and, if given, match(event) true),
        among those already received (self.events) and then new ones.
        Removes it from self.events and returns it; None on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev.get('event') == name and (match is None or match(ev)):
                    return self.events.pop(i)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            old = self.sock.gettimeout()
            self.sock.settimeout(left)
            try:
                msg = self._recv()
            except socket.timeout:
                return None
            finally:
                self.sock.settimeout(old)
            if 'event' in msg:
                self.events.append(msg)

    def close(self) -> None:
        self.sock.close()
