"""Throttled progress lines for long phases: a count, the total when known, and a rate.

Two reporters, both writing through an algorithm's :data:`~starmin.algorithms.base.Progress`
callback (the CLI prints it to stderr; ``-q`` silences it):

* :class:`Meter` -- for a Python loop that counts its work: ``meter.tick(done)`` in the loop,
  at most one line every :data:`INTERVAL` seconds, e.g.
  ``greedy packing, level 2: 412,000 / 1,000,000 rows (96,000 rows/s)``.
* :func:`heartbeat` -- for one opaque call that cannot count (a HiGHS solve, which releases
  the GIL): a thread says how long it has been running, every :data:`INTERVAL` seconds.

The clock is read only to decide *whether to print*; nothing here feeds back into a result, so
releases stay byte-identical whatever the machine's load. Both are free when progress is
:func:`~starmin.algorithms.base.silent`: no clock is read and no thread is started.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from starmin.algorithms.base import Progress, silent

INTERVAL = 2.0
"""Default seconds between two progress lines of one phase (tests set it to 0)."""
_QUICK = 0.05
"""A :class:`Meter` checks the clock about this often (seconds): its stride of ticks between
two clock reads doubles while the reads come faster than this, and halves when slower."""

Clock = Callable[[], float]


def _num(x: float) -> str:
    return f"{x:,.0f}"


class Meter:
    """Progress of one counted phase; cheap enough for a hot loop.

    ``tick(done)`` compares ``done`` with the next checkpoint and returns at once below it; at
    a checkpoint it reads the clock and prints ``what: done / total unit (rate unit/s)`` when
    ``interval`` seconds passed since the last line. Checkpoints adapt so the clock is read
    about every :data:`_QUICK` seconds, whatever one tick costs. ``interval`` defaults to
    :data:`INTERVAL` (read when the meter is made); ``note``, if given, is called for a
    phrase appended to each line (the state of the phase).
    """

    def __init__(self, progress: Progress, what: str, unit: str, total: int | None = None,
                 *, interval: float | None = None, note: Callable[[], str] | None = None,
                 clock: Clock = time.monotonic) -> None:
        self.progress, self.what, self.unit, self.total = progress, what, unit, total
        self.note = note
        self.interval = INTERVAL if interval is None else float(interval)
        self.clock = clock
        self.on = progress is not silent
        self.start = self.last = self.seen = clock() if self.on else 0.0
        self.stride = 1
        self.next = 1 if self.on else 1 << 62
        self.lines = 0

    def tick(self, done: int) -> None:
        """Report ``done`` units of work finished (non-decreasing), if it is time to."""
        if done >= self.next:
            self._check(done)

    def _check(self, done: int) -> None:
        now = self.clock()
        if now - self.seen < _QUICK:
            self.stride = min(self.stride * 2, 1 << 20)
        elif self.stride > 1:
            self.stride //= 2
        self.seen = now
        self.next = done + self.stride
        if now - self.last >= self.interval:
            self.last = now
            self.say(done, now)

    def say(self, done: int, now: float | None = None) -> None:
        """Print the line for ``done`` now, throttle or not."""
        if not self.on:
            return
        now = self.clock() if now is None else now
        rate = done / max(now - self.start, 1e-9)
        of = "" if self.total is None else f" / {_num(self.total)}"
        tail = "" if self.note is None else f", {self.note()}"
        self.progress(f"{self.what}: {_num(done)}{of} {self.unit} ({_num(rate)} {self.unit}/s)"
                      f"{tail}")
        self.lines += 1


@contextmanager
def heartbeat(progress: Progress, what: str, *, interval: float | None = None,
              clock: Clock = time.monotonic) -> Iterator[None]:
    """While the ``with`` body runs, print ``what: running, N s`` every ``interval`` seconds
    from a helper thread (for calls that release the GIL and report nothing themselves, such
    as a HiGHS solve). The thread is joined before the body's result is used, so its lines
    never interleave with the caller's."""
    if progress is silent:
        yield
        return
    wait = max(INTERVAL if interval is None else float(interval), 0.01)
    stop = threading.Event()
    start = clock()

    def beat() -> None:
        while not stop.wait(wait):
            progress(f"{what}: running, {clock() - start:,.0f} s")

    thread = threading.Thread(target=beat, name="starmin-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
