"""The rows of one result array as a run stores them: a first block reserved for the run's
expected rows (of one arena for all arrays, in huge pages where the system gives them, its
rows every step control fills written once before the first step), then blocks of
BLOCK_ROWS rows; each chunk's rows copied in with one slice assignment and handed out
without another copy while they fit in the first block."""

from __future__ import annotations

import bisect
import mmap

import numpy as np
from numpy.typing import ArrayLike

#: Rows per block of each result array after the first (which holds `capacity` rows).
BLOCK_ROWS = 4096
#: Bytes of a transparent huge page (x86-64, arm64 with 4 kB pages).
HUGE_PAGE = 2 << 20


def reserve(
    shapes: list[tuple[tuple[int, ...], str]], capacity: int, touched: int
) -> list[RowStore]:
    """One RowStore per (trailing shape, dtype), their first `capacity` rows views of one
    arena: its first-touch page faults are few where the system gives huge pages."""
    widths = [int(np.prod(tail, dtype=int)) for tail, _ in shapes]
    whole, at, out = _arena(capacity * sum(widths)), 0, []
    for (tail, dtype), w in zip(shapes, widths, strict=True):
        first = whole[at : at + capacity * w].view(dtype).reshape(capacity, *tail)
        out.append(RowStore(tail, capacity, dtype, touched, first))
        at += capacity * w
    return out


class RowStore:
    """Rows of one array: a first block of `capacity` rows (`first`, or np.empty: its pages are
    touched as rows arrive; the first `touched` rows written at once), then blocks of
    BLOCK_ROWS rows as needed. Rows are copied in once and handed out without another copy
    while they fit in the first block; no per-row or per-chunk Python objects (they cost more
    than the data on long runs)."""

    def __init__(
        self,
        tail: tuple[int, ...],
        capacity: int = 0,
        dtype: str = "float64",
        touched: int = 0,
        first: np.ndarray | None = None,
    ) -> None:
        self.tail, self.dtype, self.capacity = tail, dtype, capacity
        self.empty = 0 in tail  # rows of no numbers (e.g. no contacts): counted, not stored
        self.blocks: list[np.ndarray] = []
        self.starts: list[int] = []  # the first row of each block
        self.n = 0  # rows stored
        self._at = (np.zeros((0, *tail)), 0)  # the block last written and its first row
        if first is not None and capacity and not self.empty:
            self.blocks, self.starts = [first], [0]
        if touched and not self.empty:
            self._block(0)[0][:touched] = 0

    def extend(self, rows: ArrayLike) -> None:
        # called for every array after every chunk: the common case is one slice assignment
        # (which converts to the array's dtype), and an array of no numbers costs next to nothing
        if not isinstance(rows, np.ndarray):
            rows = np.asarray(rows, dtype=float)
        k = rows.shape[0] if rows.ndim else 1
        if self.empty:
            self.n += k
            return
        rows = rows.reshape((k, *self.tail))
        block, start = self._at
        if start <= self.n and self.n + k <= start + block.shape[0]:  # one slice assignment
            block[self.n - start : self.n - start + k] = rows
            self.n += k
            return
        done = 0
        while done < k:
            block, start = self._at = self._block(self.n)
            take = min(block.shape[0] - (self.n - start), k - done)
            block[self.n - start : self.n - start + take] = rows[done : done + take]
            done += take
            self.n += take

    def _block(self, row: int) -> tuple[np.ndarray, int]:
        """The block holding `row` and its first row (a new block for the next row)."""
        b = bisect.bisect_right(self.starts, row) - 1
        if b < 0 or row - self.starts[b] >= self.blocks[b].shape[0]:
            size = max(self.capacity, BLOCK_ROWS) if not self.blocks else BLOCK_ROWS
            self.starts.append(row)
            self.blocks.append(np.empty((size, *self.tail), dtype=self.dtype))
            b = len(self.blocks) - 1
        return self.blocks[b], self.starts[b]

    def drop(self, k: int) -> None:
        """Forget the last k rows."""
        self.n -= k

    def tail_rows(self, k: int) -> np.ndarray:
        """The last k rows: a view when they lie in one block."""
        if self.empty or not k:
            return np.zeros((k, *self.tail), dtype=self.dtype)
        block, start = self._block(self.n - k)
        if self.n - start <= block.shape[0]:
            return block[self.n - k - start : self.n - start]
        return self.rows()[self.n - k :]

    def last(self) -> np.ndarray:
        if self.empty or not self.n:
            return np.zeros(self.tail)
        block, start = self._block(self.n - 1)
        return block[self.n - 1 - start].astype(float)

    def rows(self, dtype: str = "float64") -> np.ndarray:
        """The rows stored: a view of the first block when they fit in it (rows once stored
        never change), else one new array."""
        if self.empty or not self.blocks:
            return np.zeros((self.n if self.empty else 0, *self.tail), dtype=dtype)
        if self.n <= self.blocks[0].shape[0]:
            return self.blocks[0][: self.n].astype(dtype, copy=False)
        out = np.empty((self.n, *self.tail), dtype=dtype)
        for block, start in zip(self.blocks, self.starts, strict=True):
            if start < self.n:
                part = block[: self.n - start]
                out[start : start + part.shape[0]] = part
        return out

    @property
    def nbytes(self) -> int:
        per_row = int(np.prod(self.tail, dtype=int)) * 8
        return self.n * per_row


def _arena(n: int) -> np.ndarray:
    """n float64 of anonymous memory, in transparent huge pages where the system gives them;
    an arena of a huge page or more is rounded up to whole ones (its rows' last huge page is
    faulted in with the touched rows, not page by page between chunks)."""
    size = max(n, 1) * 8
    if size >= HUGE_PAGE:
        size = -(-size // HUGE_PAGE) * HUGE_PAGE
    try:
        buf = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        buf.madvise(mmap.MADV_HUGEPAGE)
    except (AttributeError, OSError, ValueError):
        return np.empty(n)
    return np.frombuffer(buf, dtype=float)[:n]
