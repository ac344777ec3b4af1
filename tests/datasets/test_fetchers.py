"""Tests of rankclust.datasets._fetchers: real data read from the data home.

conftest.py points RANKCLUST_DATA at ../shared/data when it exists; the tests that need the
files take the ``shared_data`` fixture and skip cleanly without it.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.datasets import (
    PARTIAL_LABEL_RANKING_DATASETS,
    PLMIX_DATASETS,
    RANKCLUSTER_DATASETS,
    fetch_apa,
    fetch_apa_elections,
    fetch_german,
    fetch_irish_election,
    fetch_label_ranking_partial,
    fetch_msnbc,
    fetch_plmix,
    fetch_preflib,
    fetch_rankcluster,
    fetch_sushi,
)
from rankclust.io import SUSHI_USER_FEATURES


def test_sushi(shared_data):
    A = fetch_sushi("A", data_home=shared_data)
    assert A.shape == (5000, 10) and A.is_complete and A.kind == "subset"
    assert A.items[:3] == ("ebi", "anago", "maguro")  # from README-en.txt
    X, B = fetch_sushi("b", return_features=True, data_home=shared_data)
    assert B.shape == (5000, 100) and (B.lengths == 10).all()
    assert len(set(B.items)) == 100 and B.items[6] == "ikura"
    assert X.shape == (5000, len(SUSHI_USER_FEATURES))
    with pytest.raises(ValueError, match="set must be 'A' or 'B'"):
        fetch_sushi("C")


def test_sushi_without_readme_has_no_names(tmp_path):
    (tmp_path / "sushi3").mkdir()  # a small synthetic file: SUSHI data are never copied
    (tmp_path / "sushi3" / "sushi3a.5000.10.order").write_text("3 1\n0 3 2 0 1\n")
    R = fetch_sushi("A", data_home=tmp_path)
    assert R.items is None and R.to_orderings() == [[2, 0, 1]]


def test_apa_1980(shared_data):
    R = fetch_apa(data_home=shared_data)
    assert R.shape == (15449, 5) and R.kind == "top"
    assert R.items == tuple(f"Candidate {j}" for j in range(1, 6))
    C = fetch_apa(complete_only=True, data_home=shared_data)
    assert C.shape == (5738, 5) and C.is_complete


def test_german(shared_data):
    R = fetch_german(data_home=shared_data)
    assert R.shape == (2262, 4) and R.is_complete and R.items[0] == "order"


@pytest.mark.parametrize("name", PLMIX_DATASETS)
def test_plmix(shared_data, name):
    rows = {"carconf": 435, "dublinwest": 29988, "gaming": 91, "nascar": 36, "occup": 143}
    R = fetch_plmix(name, data_home=shared_data)
    assert R.n_rankings == rows.get(name, 300) and R.kind == "top"


@pytest.mark.parametrize("name", RANKCLUSTER_DATASETS)
def test_rankcluster(shared_data, name):
    dims = fetch_rankcluster(name, data_home=shared_data)
    shape = {"big4": (2, 21, 4), "eurovision": (6, 34, 8), "quiz": (4, 70, 4)}
    n_dims, n, m = shape.get(name, (1, 130, 7) if name == "sports" else (1, 98, 5))
    assert len(dims) == n_dims and all(d.shape == (n, m) for d in dims)


def test_preflib_irish_and_apa_elections(shared_data):
    north = fetch_preflib("00001-00000001", data_home=shared_data)
    assert north.weights.sum() == 43942 and north.n_items == 12
    assert fetch_preflib("irish_election_2002/00001-00000001.soi", data_home=shared_data) == north
    assert fetch_irish_election(data_home=shared_data) == north
    west = fetch_irish_election("West", data_home=shared_data)
    assert west.weights.sum() == 29988 and west.n_items == 9
    meath = fetch_irish_election("meath", data_home=shared_data)
    assert meath.weights.sum() == 64081 and meath.n_items == 14
    apa = fetch_apa_elections(1998, data_home=shared_data)
    assert apa.weights.sum() == 18723 and apa.n_items == 5
    assert fetch_apa_elections(2009, data_home=shared_data).weights.sum() == 15313
    with pytest.raises(ValueError, match=r"year must be an int in 1998\.\.2009"):
        fetch_apa_elections(1997)
    with pytest.raises(ValueError, match="unknown constituency"):
        fetch_irish_election("south")


def test_dublin_west_agrees_across_sources(shared_data):
    """PLMIX's d_dublinwest and PrefLib's Dublin West hold the same 29,988 ballots.

    PLMIX stores the top-8 ballots of 9 candidates as complete rankings, which is the same
    top-t list; completing those first, the distinct ballots and their counts agree.
    """

    def completed(R):
        r = R.ranks.copy()
        short = (r >= 0).sum(axis=1) == R.n_items - 1
        r[short] = np.where(r[short] < 0, R.n_items - 1, r[short])
        return Rankings(r, kind="top", weights=R.weights)

    a, _ = completed(fetch_plmix("dublinwest", data_home=shared_data)).unique()
    b, _ = completed(fetch_irish_election("west", data_home=shared_data)).unique()
    assert a == b
    assert a.weights.sum() == 29988


def test_msnbc(shared_data):
    R = fetch_msnbc(max_rows=500, data_home=shared_data)
    assert R.shape == (500, 17) and R.kind == "subset" and R.items[0] == "frontpage"


@pytest.mark.parametrize("name", ["iris", "wine", "glass", "breast"])
def test_partial_label_ranking(shared_data, name):
    X, Y = fetch_label_ranking_partial(name, data_home=shared_data)
    assert X.shape[0] == Y.n_rankings and Y.has_ties.any()


def test_partial_names_match_files(shared_data):
    files = {p.stem for p in (shared_data / "partial_label_ranking_alfaro").glob("*.csv")}
    assert files == set(PARTIAL_LABEL_RANKING_DATASETS)


MISSING = [
    (lambda h: fetch_sushi("A", data_home=h), "sushi3a.5000.10.order", "kamishima.net"),
    (lambda h: fetch_sushi("B", data_home=h), "sushi3b.5000.10.order", "forbids redistribution"),
    (lambda h: fetch_apa(data_home=h), "d_apa_orderings.csv", "PLMIX"),
    (lambda h: fetch_german(data_home=h), "d_german_orderings.csv", "pyreadr"),
    (lambda h: fetch_plmix("rice", data_home=h), "d_rice_orderings.csv", "d_rice.RData"),
    (lambda h: fetch_rankcluster("big4", data_home=h), "big4_rankings.csv", "Rankcluster"),
    (lambda h: fetch_preflib("00002-00000001.soi", data_home=h), "00002-00000001", "PrefLib"),
    (lambda h: fetch_irish_election("west", data_home=h), "00001-00000002.soi", "preflib"),
    (lambda h: fetch_apa_elections(2001, data_home=h), "00028-00000004.soi", "00028 - apa"),
    (lambda h: fetch_msnbc(data_home=h), "msnbc990928.seq", "UCI"),
    (lambda h: fetch_label_ranking_partial("iris", data_home=h), "iris.csv", "scikit-lr"),
]


@pytest.mark.parametrize(("fetch", "fname", "how"), MISSING)
def test_missing_file_says_where_and_how(tmp_path, fetch, fname, how):
    with pytest.raises(FileNotFoundError) as err:
        fetch(tmp_path)
    msg = str(err.value)
    assert fname in msg and how in msg
    assert str(tmp_path) in msg and "RANKCLUST_DATA" in msg


def test_missing_file_uses_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKCLUST_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="nowhere"):
        fetch_apa()


def test_gzipped_copy_in_the_data_home_is_found(shared_data, tmp_path):
    import gzip

    (tmp_path / "german_political_goals").mkdir()
    src = shared_data / "german_political_goals" / "d_german_orderings.csv"
    dest = tmp_path / "german_political_goals" / "d_german_orderings.csv.gz"
    dest.write_bytes(gzip.compress(src.read_bytes()))
    assert fetch_german(data_home=tmp_path) == fetch_german(data_home=shared_data)
