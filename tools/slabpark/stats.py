# SPDX-License-Identifier: GPL-2.0
"""Medians with ranges.  Two groups of runs differ "beyond noise" only
where their ranges do not overlap: with 5-10 TCG runs a group, that is
the only claim the data carry."""

from dataclasses import dataclass
from statistics import median
from typing import Callable, Iterable, Optional

__all__ = ['median', 'Spread', 'beyond_noise', 'fmt_num', 'fmt_spread', 'fmt_range', 'quantile',
           'rnd']


@dataclass(frozen=True)
class Spread:
    n: int
    med: float
    lo: float
    hi: float

    @classmethod
    def of(cls, values: Iterable[float]) -> Optional['Spread']:
        v = [float(x) for x in values]
        return cls(len(v), median(v), min(v), max(v)) if v else None

    def rel_spread_pct(self) -> Optional[float]:
        return 100.0 * (self.hi - self.lo) / abs(self.med) if self.med else None


def beyond_noise(a: Optional[Spread], b: Optional[Spread]) -> bool:
    """two runs or more each (one run has no range), ranges apart"""
    return a is not None and b is not None and a.n > 1 and b.n > 1 and \
        (a.hi < b.lo or b.hi < a.lo)


def fmt_num(x: float) -> str:
    """3 significant digits with k/M/G: 412345 -> '412k'"""
    x = float('%.3g' % x)   # 999.6 -> 1000, 999999 -> 1e6: then 1k, 1M
    div, suf = next(((d, s) for d, s in ((1e9, 'G'), (1e6, 'M'), (1e3, 'k')) if abs(x) >= d),
                    (1, ''))
    x /= div
    if x == 0:
        return '0'
    if abs(x) >= 100:
        return '%.0f' % x + suf
    return ('%.*f' % (1 if abs(x) >= 10 else 2, x)).rstrip('0').rstrip('.') + suf


def fmt_spread(s: Optional[Spread], fmt: Callable[[float], str] = fmt_num) -> str:
    """'median min-max', the median alone for one value"""
    if s is None:
        return '-'
    return fmt(s.med) if s.lo == s.hi else '%s %s-%s' % (fmt(s.med), fmt(s.lo), fmt(s.hi))


def quantile(values: Iterable[float], f: float) -> float:
    v = sorted(values)
    x = f * (len(v) - 1)
    i = int(x)
    return v[-1] if i >= len(v) - 1 else v[i] + (x - i) * (v[i + 1] - v[i])


def rnd(x: float) -> int:
    """halves away from zero"""
    return -int(-x + 0.5) if x < 0 else int(x + 0.5)


def fmt_range(values: Iterable[float], decimals: int = 0) -> str:
    """'median (min-max)', 'n/a' for no values"""
    s = Spread.of(values)
    if s is None:
        return 'n/a'
    return '%s (%s-%s)' % tuple('%d' % rnd(x) if decimals == 0 else '%.*f' % (decimals, x)
                                for x in (s.med, s.lo, s.hi))
