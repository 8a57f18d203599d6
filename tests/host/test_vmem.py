"""e2e/virtio_mem/vmem.py: the guest's requests go through COMMANDS; a
malformed request is answered "bad request", a bug of a handler is not
hidden from the host."""
import re
import time
import unittest
from typing import Any, Optional
from unittest import mock

import common  # noqa: F401  (import paths)

import vmem
from e2e import E2EError
from e2e.qmp import QmpError

GiB, MiB = 1 << 30, 1 << 20


class FakeQmp:
    """query-memory-devices and qom-set of the run's two devices; a qom-set
    applies at once.  broken: drop a field from query-memory-devices (a
    host-side bug for a handler to trip over)."""

    def __init__(self, broken: Optional[str] = None, gone: bool = False) -> None:
        self.dev = {'vm0': {'memaddr': 4 * GiB, 'max-size': 4 * GiB, 'block-size': 2 * MiB,
                            'size': 0, 'requested-size': 0},
                    'vm1': {'memaddr': 8 * GiB, 'max-size': 4 * GiB, 'block-size': GiB,
                            'size': 0, 'requested-size': 0}}
        self.events: list[dict[str, Any]] = []
        self.broken = broken
        self.gone = gone
        self.calls: list[str] = []

    def cmd(self, name: str, **args: Any) -> Any:
        self.calls.append(name)
        if self.gone:       # what Qmp.cmd raises once QEMU has exited
            raise E2EError('QMP connection: [Errno 32] Broken pipe')
        if name == 'query-memory-devices':
            out = []
            for i, d in self.dev.items():
                data = {'id': i, **d}
                if self.broken:
                    del data[self.broken]
                out.append({'type': 'virtio-mem', 'data': data})
            return out
        if name == 'qom-set':
            dev = args['path'].rsplit('/', 1)[1]
            block = self.dev[dev]['block-size']
            if args['value'] % block:
                raise QmpError(name, {'class': 'GenericError', 'desc':
                                      f"'requested-size' has to be multiples of "
                                      f"'block-size' (0x{block:x})"})
            self.dev[dev]['requested-size'] = self.dev[dev]['size'] = args['value']
            return {}
        if name == 'set-action':
            return {}
        if name == 'system_reset':
            for d in self.dev.values():
                d['size'] = 0
            return {}
        raise AssertionError(f'unexpected QMP command {name}')

    def clear_events(self, match: Any = None) -> list[dict[str, Any]]:
        self.events = []
        return []

    def wait_event(self, name: str, timeout: float, match: Any = None) -> None:
        return None


class FakeVm:
    """A console with the guest's requests already on it; records answers.
    alive: what running() says (QEMU still up)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sent: list[str] = []
        self.alive = True

    def running(self) -> bool:
        return self.alive

    def send(self, text: str) -> None:
        if not self.alive:      # QEMU's stdin, once it exited
            raise BrokenPipeError(32, 'Broken pipe')
        self.sent.append(text)

    def wait_for(self, pattern: str, timeout: float, start: int = 0) -> Optional[re.Match[str]]:
        return re.compile(pattern, re.M).search(self.text, start)



def host(qmp: Optional[FakeQmp] = None, console: str = '') -> vmem.Host:
    return vmem.Host(FakeVm(console), qmp or FakeQmp(),  # type: ignore[arg-type]
                     [['sbm_grow_shrink', 'cycles'], ['reboot_replug']])


class Table(unittest.TestCase):
    def test_commands(self) -> None:
        """The commands of vmem_test.c's header, and their arguments."""
        self.assertEqual({n: len(c.args) for n, c in vmem.COMMANDS.items()}, {
            'hello': 1, 'info': 0, 'query': 1, 'set': 3, 'request': 2, 'settle': 4,
            'wait': 2, 'reboot': 0})
        self.assertEqual({n: sorted(c.flags) for n, c in vmem.COMMANDS.items() if c.flags},
                         {'set': ['ev', 'stall']})


class Dispatch(unittest.TestCase):
    def test_answers(self) -> None:
        h = host()
        self.assertEqual(h.dispatch(['hello', '500000']), '500000 sbm_grow_shrink cycles')
        self.assertEqual(h.dispatch(['info']), 'vm0 4294967296 4294967296 2097152 '
                                               'vm1 8589934592 4294967296 1073741824')
        self.assertEqual(h.dispatch(['query', 'vm1']), '0 0')
        self.assertRegex(h.dispatch(['set', 'vm0', '2097152', '5']) or '', r'^ok 2097152 \d+$')
        self.assertRegex(h.dispatch(['set', 'vm1', '1073741824', '5', 'ev']) or '',
                         r'^ok 1073741824 \d+ ev=none$')
        self.assertEqual(h.dispatch(['query', 'vm0']), '2097152 2097152')
        self.assertEqual(h.dispatch(['request', 'vm0', '0']), 'ok')
        self.assertRegex(h.dispatch(['wait', 'vm0', '1']) or '', r'^ok 0 \d+$')
        self.assertEqual(h.dispatch(['hello', '400000']), '500000 reboot_replug')

    def test_settle_scale(self) -> None:
        """settle waits stable x VMEM_SETTLE_SCALE seconds of no change,
        at most the timeout; a device stuck at 64M never reaches 0."""
        q = FakeQmp()
        q.dev['vm0']['size'] = 64 * MiB
        plain = q.cmd

        def stuck(name: str, **args: Any) -> Any:
            if name == 'qom-set':
                q.dev['vm0']['requested-size'] = args['value']
                return {}
            return plain(name, **args)
        q.cmd = stuck  # type: ignore[method-assign]
        h = host(q)
        for scale, timeout, least in ((1.0, 5.0, 0.1), (4.0, 5.0, 0.4), (4.0, 0.25, 0.25)):
            with mock.patch.object(vmem, 'SETTLE_SCALE', scale):
                t0 = time.monotonic()
                ans = h.cmd_settle('vm0', 0, timeout, 0.1)
                took = time.monotonic() - t0
            self.assertRegex(ans, r'^settled 67108864 \d+$')
            self.assertGreaterEqual(took, least)
            self.assertLess(took, least + 1.0)

    def stuck_at(self, q: FakeQmp, dev: str, sizes: list[int]) -> None:
        """dev's size goes through sizes, one per query, then stays at
        the last one; qom-set only sets requested-size."""
        plain = q.cmd

        def slow(name: str, **args: Any) -> Any:
            if name == 'qom-set':
                q.dev[dev]['requested-size'] = args['value']
                return {}
            if name == 'query-memory-devices' and len(sizes) > 1:
                sizes.pop(0)
                q.dev[dev]['size'] = sizes[0]
            return plain(name, **args)
        q.dev[dev]['size'] = sizes[0]
        q.cmd = slow  # type: ignore[method-assign]

    def test_stall(self) -> None:
        """set ... stall: "stalled" once the size stood still for
        STALL_S x SETTLE_SCALE, long before the timeout; without the
        flag the same device waits the whole timeout."""
        q = FakeQmp()
        self.stuck_at(q, 'vm0', [3 * GiB, 2 * GiB])
        h = host(q)
        with mock.patch.object(vmem, 'STALL_S', 0.2), mock.patch.object(vmem, 'SETTLE_SCALE', 2.0):
            t0 = time.monotonic()
            ans = h.dispatch(['set', 'vm0', '0', '30', 'stall']) or ''
            took = time.monotonic() - t0
            self.assertRegex(ans, r'^stalled 2147483648 \d+$')
            self.assertGreaterEqual(took, 0.4)
            self.assertLess(took, 3.0)
            t0 = time.monotonic()
            ans = h.dispatch(['set', 'vm0', '0', '1.0']) or ''
            self.assertRegex(ans, r'^timeout 2147483648 \d+$')
            self.assertGreaterEqual(time.monotonic() - t0, 1.0)

    def test_moving_size_is_no_stall(self) -> None:
        """A size that keeps moving reaches its target under stall."""
        q = FakeQmp()
        steps = [3 * GiB - i * 128 * MiB for i in range(25)] + [0]
        self.stuck_at(q, 'vm0', steps)
        with mock.patch.object(vmem, 'STALL_S', 0.5):
            self.assertRegex(host(q).dispatch(['set', 'vm0', '0', '30', 'stall']) or '', r'^ok 0 \d+$')

    def test_qemu_refusal_is_an_answer(self) -> None:
        """QEMU's error text reaches the guest (bad_requests checks it)."""
        self.assertEqual(host().dispatch(['set', 'vm0', '3145728', '10']),
                         "error 'requested-size' has to be multiples of 'block-size' (0x200000)")

    def test_bad_requests(self) -> None:
        h = host()
        for words, why in [
                ([], 'empty request'),
                (['frob'], "unknown command 'frob'"),
                (['query'], 'query takes 1 argument(s), got 0'),
                (['query', 'vm0', 'vm1'], 'query takes 1 argument(s), got 2'),
                (['info', 'x'], 'info takes 0 argument(s), got 1'),
                (['set', 'vm0', '1'], 'set takes 3 argument(s) and flags ev stall, got 2'),
                (['set', 'vm0', '1', '2', 'fast'], 'set: unknown flag(s) fast'),
                (['query', 'vm9'], "query: no device 'vm9' (vm0, vm1)"),
                (['set', 'vm0', '1G', '5'], "set: invalid literal for int() with base 10: '1G'"),
                (['wait', 'vm0', 'soon'], "wait: could not convert string to float: 'soon'"),
                (['hello', 'many'], "hello: invalid literal for int() with base 10: 'many'")]:
            with self.subTest(words=words):
                self.assertEqual(h.dispatch(words),
                                 f'error bad request {" ".join(words)!r}: {why}')
        self.assertEqual(h.boot, 0)                 # no handler ran

    def test_handler_bug_is_not_a_bad_request(self) -> None:
        """A request that fits the table but trips a handler over a bug of
        the host side raises (the run stops, loudly)."""
        with self.assertRaises(KeyError):
            host(FakeQmp(broken='requested-size')).dispatch(['query', 'vm0'])
        with self.assertRaises(KeyError):
            host(FakeQmp(broken='memaddr')).dispatch(['info'])
        h = host()
        h.q = None  # type: ignore[assignment]
        with self.assertRaises(AttributeError):
            h.dispatch(['query', 'vm0'])

    def test_fnv1a(self) -> None:
        # FNV-1a 32 of "" is the offset basis; of "a", 0xe40c292c (the
        # published test vector)
        self.assertEqual(vmem.fnv1a(''), 0x811c9dc5)
        self.assertEqual(vmem.fnv1a('a'), 0xe40c292c)

    def test_serve(self) -> None:
        def sync(tag: str) -> str:
            return f'e2e-sync: {tag} #{vmem.fnv1a(tag):08x}\n'
        console = (sync('vm 12.1 query vm0') + sync('vm 12.2 frob 1')
                   + sync('vm 12.3 request vm1 1073741824'))
        h = host(console=console)
        h.serve(5)
        self.assertEqual(h.vm.sent, [            # type: ignore[attr-defined]
            'e2e-reply: vm 12.1 query vm0 0 0\n',
            "e2e-reply: vm 12.2 frob 1 error bad request 'frob 1': unknown command 'frob'\n",
            'e2e-reply: vm 12.3 request vm1 1073741824 ok\n'])

    def test_serve_garbled_and_resent(self) -> None:
        """A line the kernel printed into is ignored (its checksum does not
        match); the guest's resend is served; a second resend gets the
        same answer without a second qom-set."""
        tag = 'vm 12.4 request vm1 1073741824'
        good = f'e2e-sync: {tag} #{vmem.fnv1a(tag):08x}\n'
        garbled = f'e2e-sync: vm 12.4 request vm1 1073[  1.0] migrating pfn\n741824 #{vmem.fnv1a(tag):08x}\n'
        truncated = f'e2e-sync: vm 12.4 request vm1 1073 #{vmem.fnv1a(tag):08x}\n'
        h = host(console=garbled + truncated + good + good)
        h.serve(5)
        self.assertEqual(h.vm.sent, [            # type: ignore[attr-defined]
            f'e2e-reply: {tag} ok\n', f'e2e-reply: {tag} ok\n'])
        sets = [c for c in h.q.calls if c == 'qom-set']   # type: ignore[attr-defined]
        self.assertEqual(len(sets), 1)

    def test_serve_new_boot_same_tag(self) -> None:
        """After a reboot the guest's pids and sequence numbers start
        again: a tag seen in the boot before is a new request."""
        def sync(tag: str) -> str:
            return f'e2e-sync: {tag} #{vmem.fnv1a(tag):08x}\n'
        req = 'vm 29.3 request vm1 1073741824'
        h = host(console=sync(req) + sync('vm 29.4 reboot') + sync(req))
        h.serve(5)
        sets = [c for c in h.q.calls if c == 'qom-set']   # type: ignore[attr-defined]
        self.assertEqual(len(sets), 2)

    def test_serve_guest_died(self) -> None:
        """QEMU exits (the guest panicked) while a request is served: QMP
        and the console are gone; serve returns, no traceback (the
        missing results fail the run)."""
        req = 'vm 30.1 request vm1 1073741824'
        h = host(FakeQmp(gone=True), console=f'e2e-sync: {req} #{vmem.fnv1a(req):08x}\n')
        h.vm.alive = False                          # type: ignore[attr-defined]
        h.serve(5)
        self.assertEqual(h.vm.sent, [])             # type: ignore[attr-defined]

    def test_serve_qmp_lost_while_qemu_runs(self) -> None:
        """QMP lost while the guest still listens: the guest is told (its
        test fails with QEMU's side of the story)."""
        req = 'vm 30.2 request vm1 1073741824'
        h = host(FakeQmp(gone=True), console=f'e2e-sync: {req} #{vmem.fnv1a(req):08x}\n')
        h.serve(5)
        self.assertEqual(h.vm.sent, [              # type: ignore[attr-defined]
            f'e2e-reply: {req} error QMP connection: [Errno 32] Broken pipe\n'])

if __name__ == '__main__':
    unittest.main()
