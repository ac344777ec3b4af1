"""pandas in and out of Rankings: from_dataframe / to_dataframe, DataFrames in from_ranks and
from_orderings, orderings written with item names."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankclust import Rankings

pd = pytest.importorskip("pandas")


# ------------------------------------------------------------------ strategies
@st.composite
def rankings(draw, named=None):
    """Random Rankings: ties, absent items, empty rows, optional weights and names."""
    n = draw(st.integers(0, 6))
    m = draw(st.integers(1, 6))
    rows = draw(
        st.lists(st.lists(st.integers(-1, m - 1), min_size=m, max_size=m), min_size=n, max_size=n)
    )
    ranks = np.array(rows, dtype=np.int64).reshape(n, m)
    weights = None
    if draw(st.booleans()):
        weights = draw(
            st.lists(
                st.floats(0, 1e6, allow_nan=False, allow_infinity=False), min_size=n, max_size=n
            )
        )
    if named is None:
        named = draw(st.booleans())
    items = None
    if named:
        items = draw(
            st.lists(
                st.text(alphabet="abcxyzé _", min_size=1, max_size=5),
                min_size=m,
                max_size=m,
                unique=True,
            ).filter(lambda xs: "weight" not in xs)
        )
    kind = draw(st.sampled_from(["subset", "top"]))
    return Rankings(ranks, kind=kind, weights=weights, items=items)


@settings(max_examples=150, deadline=None)
@given(R=rankings(), layout=st.sampled_from(["wide", "long"]))
def test_round_trip_is_exact(R, layout):
    df = R.to_dataframe(layout)
    back = Rankings.from_dataframe(df, layout)
    assert back == R  # ranks, kind, items, weights (and whether weighted)
    assert back.kind == R.kind


@settings(max_examples=60, deadline=None)
@given(R=rankings(named=True))
def test_long_round_trip_with_row_ids_and_renamed_columns(R):
    ids = [f"voter {i}" for i in range(R.n_rankings)]
    df = R.to_dataframe("long", index=ids, respondent="who", item="cand", rank="pos", weight="w")
    assert set(df.columns) <= {"who", "cand", "pos", "w"}
    back = Rankings.from_dataframe(
        df, "long", respondent="who", item="cand", rank="pos", weight="w"
    )
    assert back == R
    # a shuffled long frame gives the same rankings once respondents are in the same order
    if len(df):
        shuffled = df.sample(frac=1.0, random_state=0)
        again = Rankings.from_dataframe(
            shuffled, "long", respondent="who", item="cand", rank="pos", weight="w"
        )
        first_seen = list(dict.fromkeys(shuffled["who"]))
        order = [ids.index(x) for x in first_seen]
        assert again == R[order]


@settings(max_examples=60, deadline=None)
@given(R=rankings(named=True))
def test_wide_frame_holds_the_one_based_ranks(R):
    df = R.to_dataframe(index=[f"r{i}" for i in range(R.n_rankings)])
    assert list(df.index) == [f"r{i}" for i in range(R.n_rankings)]
    values = df[list(R.items)].to_numpy(dtype=float, na_value=0.0)
    np.testing.assert_array_equal(values, R.to_ranks())


# ------------------------------------------------------------------ wide layout by hand
def test_from_ranks_keeps_column_names():
    df = pd.DataFrame({"tuna": [1, 2], "eel": [2, np.nan], "egg": [3, 1]})
    R = Rankings.from_ranks(df)
    assert R.items == ("tuna", "eel", "egg")
    np.testing.assert_array_equal(R.ranks, [[0, 1, 2], [1, -1, 0]])
    # items= wins over the columns; default integer columns mean unnamed items
    assert Rankings.from_ranks(df, items=["a", "b", "c"]).items == ("a", "b", "c")
    assert Rankings.from_ranks(pd.DataFrame([[1, 2], [2, 1]])).items is None


def test_from_dataframe_wide_nullable_and_weights():
    df = pd.DataFrame(
        {"a": pd.array([1, None, 2], dtype="Int64"), "b": [2, 1, 2], "weight": [3.0, 1.0, 2.0]}
    )
    R = Rankings.from_dataframe(df, kind="top")
    assert R.items == ("a", "b") and R.kind == "top"
    np.testing.assert_array_equal(R.ranks, [[0, 1], [-1, 0], [0, 0]])  # a tie in row 2
    np.testing.assert_array_equal(R.weights, [3.0, 1.0, 2.0])
    # weight=None reads a column called "weight" as an item
    assert Rankings.from_dataframe(df, weight=None).items == ("a", "b", "weight")


def test_to_dataframe_wide_values():
    R = Rankings.from_orderings([["b", "a"], [("a", "c")]], items=["a", "b", "c"])
    df = R.to_dataframe()
    assert list(df.columns) == ["a", "b", "c"]
    np.testing.assert_array_equal(df.to_numpy(dtype=float, na_value=0.0), [[2, 1, 0], [1, 0, 1]])
    assert df["b"].isna().tolist() == [False, True]
    assert str(df["a"].dtype) == "Int64"
    assert df.attrs["rankclust_kind"] == "subset"
    full = Rankings.from_orderings([[1, 0]]).to_dataframe()
    assert list(full.columns) == [0, 1] and full.dtypes.tolist() == [np.int64, np.int64]


def test_from_dataframe_wide_errors():
    with pytest.raises(ValueError, match="row 1: column 'b' holds 'x'"):
        Rankings.from_dataframe(pd.DataFrame({"a": [1, 2], "b": [2, "x"]}))
    with pytest.raises(ValueError, match="booleans"):
        Rankings.from_ranks(pd.DataFrame({"a": [True, False]}))
    with pytest.raises(ValueError, match="row 0: negative rank"):
        Rankings.from_ranks(pd.DataFrame({"a": [-1], "b": [1]}))
    with pytest.raises(ValueError, match="layout"):
        Rankings.from_dataframe(pd.DataFrame({"a": [1]}), layout="tall")
    with pytest.raises(TypeError, match="DataFrame"):
        Rankings.from_dataframe([[1, 2]])
    weighted = Rankings([[0, 1]], items=["weight", "b"], weights=[2.0])
    with pytest.raises(ValueError, match="named 'weight'"):
        weighted.to_dataframe()


# ------------------------------------------------------------------ long layout by hand
def test_from_dataframe_long_by_hand():
    df = pd.DataFrame(
        {
            "respondent": ["v2", "v2", "v1", "v1", "v1"],
            "item": ["b", "a", "c", "a", "b"],
            "rank": [1, 2, 1, 2, 2],
        }
    )
    R = Rankings.from_dataframe(df, "long")
    assert R.items == ("a", "b", "c")  # sorted distinct items
    np.testing.assert_array_equal(R.ranks, [[1, 0, -1], [1, 1, 0]])  # v2 first: seen first
    R2 = Rankings.from_dataframe(df, "long", items=["c", "b", "a", "d"])
    assert R2.items == ("c", "b", "a", "d")
    np.testing.assert_array_equal(R2.ranks, [[-1, 0, 1, -1], [0, 1, 1, -1]])


def test_from_dataframe_long_errors():
    base = {"respondent": [1, 1], "item": ["a", "a"], "rank": [1, 2]}
    with pytest.raises(ValueError, match="row 1: respondent 1 ranks item 'a' more than once"):
        Rankings.from_dataframe(pd.DataFrame(base), "long")
    with pytest.raises(ValueError, match="needs a column 'rank'"):
        Rankings.from_dataframe(pd.DataFrame(base).drop(columns="rank"), "long")
    with pytest.raises(ValueError, match="row 0: item 'a' is not one of the 1 items"):
        Rankings.from_dataframe(pd.DataFrame(base), "long", items=["z"])
    w = pd.DataFrame({"respondent": [1, 1], "item": ["a", "b"], "rank": [1, 2], "weight": [1, 2]})
    with pytest.raises(ValueError, match="row 1: the 'weight' of respondent 1 differs"):
        Rankings.from_dataframe(w, "long")
    gap = pd.DataFrame({"respondent": [1], "item": [None], "rank": [1]})
    with pytest.raises(
        ValueError, match="row 0: a rank is given but the 'item' column is missing"
    ):
        Rankings.from_dataframe(gap, "long")
    R = Rankings([[0, 1]])
    with pytest.raises(ValueError, match="must differ"):
        R.to_dataframe("long", item="rank")
    with pytest.raises(ValueError, match="repeat"):
        Rankings([[0, 1], [1, 0]]).to_dataframe("long", index=["x", "x"])


# ------------------------------------------------------------------ orderings
def test_from_orderings_dataframe_rows():
    df = pd.DataFrame({"first": ["b", "c"], "second": ["a", None], "third": ["c", None]})
    R = Rankings.from_orderings(df, items=["a", "b", "c"], kind="top")
    np.testing.assert_array_equal(R.ranks, [[1, 0, 2], [-1, -1, 0]])
    assert R.items == ("a", "b", "c")
    # integer orderings with a shorter row (NaN padded, so the column is float)
    num = pd.DataFrame([[2, 0, 1], [1, 0, np.nan]])
    np.testing.assert_array_equal(Rankings.from_orderings(num).ranks, [[1, 2, 0], [1, 0, -1]])


def test_from_orderings_dataframe_errors():
    with pytest.raises(ValueError, match="row 0: position 1 is missing but a later one is not"):
        Rankings.from_orderings(pd.DataFrame([[0, np.nan, 1]]))
    with pytest.raises(ValueError, match=r"row 0: item 'a' is not an integer .*items="):
        Rankings.from_orderings(pd.DataFrame([["a", "b"]]))


def test_orderings_by_item_name():
    R = Rankings.from_orderings([["a", "b"], ["b", "c", "a"]], items=["a", "b", "c"])
    np.testing.assert_array_equal(R.ranks, [[0, 1, -1], [2, 0, 1]])
    # names and buckets mix; a 2-d array of names takes the same path
    T = Rankings.from_orderings([[("a", "c"), "b"]], items=["a", "b", "c"])
    np.testing.assert_array_equal(T.ranks, [[0, 1, 0]])
    arr = np.array([["c", "a", "b"]])
    assert Rankings.from_orderings(arr, items=["a", "b", "c"]).ranks.tolist() == [[1, 2, 0]]
    with pytest.raises(ValueError, match="row 1: item 'd' is not one of the 3 items"):
        Rankings.from_orderings([["a"], ["d"]], items=["a", "b", "c"])
    with pytest.raises(ValueError, match="row 0: item 'a' appears more than once"):
        Rankings.from_orderings([["a", "a"]], items=["a", "b"])


def test_to_orderings_and_back_by_name():
    R = Rankings([[2, 0, 1, -1], [0, 0, -1, 1]], items=["w", "x", "y", "z"])
    named = [
        [[R.items[j] for j in bucket] for bucket in row] for row in R.to_orderings(buckets=True)
    ]
    assert Rankings.from_orderings(named, items=R.items) == R
