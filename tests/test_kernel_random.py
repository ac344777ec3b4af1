"""Tests of the compiled random streams (rankclust._kernel_random) and the kernel gate."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from rankclust._kernel_random import shuffle, splitmix64_next, xoshiro_state, xoshiro_uniform

_MASK = (1 << 64) - 1
SRC = Path(__file__).resolve().parents[1] / "src" / "rankclust"


def test_splitmix64_known_values():
    # the published SplitMix64 outputs from seed 0 (Vigna's reference splitmix64.c)
    state = np.zeros(1, dtype=np.uint64)
    got = [int(splitmix64_next(state)) for _ in range(3)]
    assert got == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    # the xoshiro seeding runs the same generator in plain Python integers
    assert [int(x) for x in xoshiro_state(0)[:3]] == got


def _xoshiro_reference(s: list[int]) -> tuple[float, list[int]]:
    """xoshiro256** (Blackman and Vigna 2018) in Python integers, and its next state."""

    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & _MASK

    result = (rotl((s[1] * 5) & _MASK, 7) * 9) & _MASK
    t = (s[1] << 17) & _MASK
    s = list(s)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return (result >> 11) * 2.0**-53, s


def test_xoshiro_uniform_matches_a_python_reference():
    rng = xoshiro_state(12345)
    ref = [int(x) for x in rng]
    for _ in range(50):
        u = xoshiro_uniform(rng)
        expected, ref = _xoshiro_reference(ref)
        assert u == expected
        assert 0.0 <= u < 1.0
    assert [int(x) for x in rng] == ref


def test_shuffle_is_a_seeded_permutation():
    a = np.arange(20)
    b = np.arange(20)
    shuffle(a, np.array([7], dtype=np.uint64))
    shuffle(b, np.array([7], dtype=np.uint64))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.sort(a), np.arange(20))
    assert not np.array_equal(a, np.arange(20))


def test_no_module_level_kernel_takes_more_than_ten_parameters():
    wide = []
    for path in sorted(SRC.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "import numba" not in source and "from numba" not in source:
            continue
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                a = node.args
                if len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) > 10:
                    wide.append(f"{path.name}:{node.name}")
    assert wide == []
