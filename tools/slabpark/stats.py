# SPDX-License-Identifier: GPL-2.0
"""Medians with ranges, and when a difference means something.

A group of runs is summarised by its median and its range (min-max).  Two
groups differ "beyond noise" only where their ranges do not overlap: with
5-10 TCG runs a group, that is the only claim the data carry.
"""

from dataclasses import dataclass
from typing import Callable, Iterable, Optional


def median(values: Iterable[float]) -> float:
    v = sorted(values)
    if not v:
        raise ValueError('median of no values')
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


@dataclass(frozen=True)
class Spread:
    """median (min-max) of n values"""
    n: int
    med: float
    lo: float
    hi: float

    @classmethod
    def of(cls, values: Iterable[float]) -> Optional['Spread']:
        v = [float(x) for x in values]
        if not v:
            return None
        return cls(len(v), median(v), min(v), max(v))

    def overlaps(self, other: 'Spread') -> bool:
        return self.lo <= other.hi and other.lo <= self.hi

    def rel_spread_pct(self) -> Optional[float]:
        """(max - min) / median in percent; None for a median of 0"""
        if self.med == 0:
            return None
        return 100.0 * (self.hi - self.lo) / abs(self.med)


def beyond_noise(a: Optional[Spread], b: Optional[Spread]) -> bool:
    """True where both exist, have two runs or more (one run has no
    range), and their ranges do not overlap"""
    return a is not None and b is not None and a.n > 1 and b.n > 1 and \
        not a.overlaps(b)


def fmt_num(x: float) -> str:
    """3 significant digits with k/M/G: 412345 -> '412k'"""
    x = float('%.3g' % x)   # 999.6 -> 1000, 999999 -> 1e6: then 1k, 1M
    ax = abs(x)
    for div, suf in ((1e9, 'G'), (1e6, 'M'), (1e3, 'k')):
        if ax >= div:
            return _sig(x / div) + suf
    return _sig(x)


def _sig(x: float) -> str:
    ax = abs(x)
    if ax == 0:
        return '0'
    if ax >= 100:
        return '%.0f' % x
    if ax >= 10:
        return ('%.1f' % x).rstrip('0').rstrip('.')
    return ('%.2f' % x).rstrip('0').rstrip('.')


def fmt_spread(s: Optional[Spread],
               fmt: Callable[[float], str] = fmt_num) -> str:
    """'median min-max' ('-' for none, the median alone for one value)"""
    if s is None:
        return '-'
    if s.lo == s.hi:
        return fmt(s.med)
    return '%s %s-%s' % (fmt(s.med), fmt(s.lo), fmt(s.hi))


def quantile(values: Iterable[float], f: float) -> float:
    """the F-quantile (0, 0.25, 0.5, 0.75, 1) by linear interpolation
    between the sorted values; the median as median()"""
    v = sorted(values)
    if f == 0.5:
        return median(v)
    x = f * (len(v) - 1)
    i = int(x)
    return v[-1] if i >= len(v) - 1 else v[i] + (x - i) * (v[i + 1] - v[i])


def rnd(x: float) -> int:
    """to the nearest integer, halves away from zero"""
    return -int(-x + 0.5) if x < 0 else int(x + 0.5)


def fmt_range(values: Iterable[float], decimals: int = 0) -> str:
    """'median (min-max)' with DECIMALS decimals ('n/a' for no values),
    the tables of report.txt after the placement tables"""
    v = sorted(values)
    if not v:
        return 'n/a'
    m, lo, hi = median(v), v[0], v[-1]
    if decimals == 0:
        return '%d (%d-%d)' % (rnd(m), rnd(lo), rnd(hi))
    return '%.*f (%.*f-%.*f)' % (decimals, m, decimals, lo, decimals, hi)


def noise_floor_pct(values: Iterable[float]) -> Optional[float]:
    """the relative spread, (max - min) / median in percent, of runs that
    should not differ (the local placement, which parks nothing, over all
    its modes); None without values or for a median of 0"""
    s = Spread.of(values)
    return s.rel_spread_pct() if s else None
