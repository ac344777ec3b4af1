"""Tests of rankclust.datasets._base: the data home and the shipped label-ranking sets."""

from __future__ import annotations

import gzip
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from rankclust.datasets import LABEL_RANKING_DATASETS, get_data_home, load_label_ranking
from rankclust.io import read_label_ranking_csv

# The table of data/label_ranking_cheng_hullermeier/PROVENANCE.md:
# name: (rows, features, labels, distinct rankings)
PROVENANCE_TABLE = {
    "authorship": (841, 70, 4, 17),
    "bodyfat": (252, 7, 7, 236),
    "calhousing": (20640, 4, 4, 24),
    "cold": (2465, 24, 4, 24),
    "cpu": (8192, 6, 5, 119),
    "diau": (2465, 24, 7, 967),
    "dtt": (2465, 24, 4, 24),
    "elevators": (16599, 9, 9, 131),
    "fried": (40768, 9, 5, 120),
    "glass": (214, 9, 6, 30),
    "heat": (2465, 24, 6, 622),
    "housing": (506, 6, 6, 112),
    "iris": (150, 4, 3, 5),
    "pendigits": (10992, 16, 10, 2081),
    "segment": (2310, 18, 7, 135),
    "spo": (2465, 24, 11, 2361),
    "stock": (950, 5, 5, 51),
    "vehicle": (846, 18, 4, 18),
    "vowel": (528, 10, 11, 294),
    "wine": (178, 13, 3, 5),
    "wisconsin": (194, 16, 16, 194),
}


def test_names_match_the_table():
    assert set(LABEL_RANKING_DATASETS) == set(PROVENANCE_TABLE)
    assert len(LABEL_RANKING_DATASETS) == 21


@pytest.mark.parametrize("name", LABEL_RANKING_DATASETS)
def test_shapes_from_provenance(name):
    n, p, k, distinct = PROVENANCE_TABLE[name]
    X, Y = load_label_ranking(name)
    assert X.shape == (n, p) and X.dtype == np.float64 and np.isfinite(X).all()
    assert Y.shape == (n, k) and Y.kind == "subset"
    assert Y.is_complete  # full permutations, no ties, nothing missing
    assert len(Y.unique()[0]) == distinct


def test_shipped_copies_are_the_original_files(shared_data):
    folder = resources.files("rankclust.datasets").joinpath("data")
    for name in LABEL_RANKING_DATASETS:
        packed = folder.joinpath(f"{name}.csv.gz").read_bytes()
        original = (shared_data / "label_ranking_cheng_hullermeier" / f"{name}.csv").read_bytes()
        assert gzip.decompress(packed) == original, name
        # reproducible archives: no file name and no time stamp in the gzip header
        assert packed[3] & 0x08 == 0 and packed[4:8] == b"\0\0\0\0", name


def test_licence_notice_is_shipped():
    folder = resources.files("rankclust.datasets").joinpath("data")
    notice = folder.joinpath("LICENSE-label-ranking.txt").read_text(encoding="utf-8")
    assert "MIT License" in notice and "Juan Carlos Alfaro" in notice
    assert "MIT" in folder.joinpath("README.md").read_text(encoding="utf-8")


def test_bunch_and_case():
    b = load_label_ranking("IRIS", return_X_y=False)
    X, Y = load_label_ranking("iris")
    np.testing.assert_array_equal(b.data, X)
    assert b.target == Y and b.name == "iris" and "150 samples" in b.DESCR


def test_unknown_name():
    with pytest.raises(ValueError, match="unknown label ranking data set 'sushi'; choose one of"):
        load_label_ranking("sushi")


def test_same_as_reading_the_csv(shared_data):
    X, Y = load_label_ranking("glass")
    X2, Y2 = read_label_ranking_csv(shared_data / "label_ranking_cheng_hullermeier" / "glass.csv")
    np.testing.assert_array_equal(X, X2)
    assert Y == Y2


def test_get_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKCLUST_DATA", str(tmp_path))
    assert get_data_home() == tmp_path
    assert get_data_home(tmp_path / "other") == tmp_path / "other"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert get_data_home("~/x") == tmp_path / "home" / "x"
    monkeypatch.delenv("RANKCLUST_DATA")
    assert get_data_home() == tmp_path / "home" / "rankclust_data"
    monkeypatch.setenv("RANKCLUST_DATA", "")
    assert get_data_home() == tmp_path / "home" / "rankclust_data"
    assert not (tmp_path / "home").exists()  # only reads, never creates
    assert isinstance(get_data_home(str(tmp_path)), Path)
