"""``fetch_*`` loaders: real data read from the data home (never shipped with rankclust).

Each loader looks for its file under :func:`~rankclust.datasets.get_data_home` with the layout
of the project's ``shared/data`` folder (a ``.gz`` copy of a file is accepted too). When the
file is missing it raises ``FileNotFoundError`` that says where it looked and how to obtain
the file. Nothing is downloaded: several of these data sets forbid redistribution or ask each
user to accept their terms.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from rankclust.datasets._base import _check_name, get_data_home
from rankclust.io.label_ranking_csv import read_label_ranking_csv
from rankclust.io.msnbc import read_msnbc
from rankclust.io.orderings_csv import read_orderings_csv, read_rankcluster_csv
from rankclust.io.preflib import read_preflib
from rankclust.io.sushi import read_sushi_order, read_sushi_udata
from rankclust.rankings import Rankings

__all__ = [
    "PARTIAL_LABEL_RANKING_DATASETS",
    "PLMIX_DATASETS",
    "RANKCLUSTER_DATASETS",
    "fetch_apa",
    "fetch_apa_elections",
    "fetch_german",
    "fetch_irish_election",
    "fetch_label_ranking_partial",
    "fetch_msnbc",
    "fetch_plmix",
    "fetch_preflib",
    "fetch_rankcluster",
    "fetch_sushi",
]

#: Partial label ranking sets (ties allowed) of Alfaro, Aledo & Gámez (2021).
PARTIAL_LABEL_RANKING_DATASETS = (
    "authorship",
    "blocks",
    "breast",
    "ecoli",
    "glass",
    "iris",
    "letter",
    "libras",
    "pendigits",
    "satimage",
    "segment",
    "vehicle",
    "vowel",
    "wine",
    "yeast",
)
#: Ordering data sets of the R package PLMIX (besides ``d_apa`` and ``d_german``).
PLMIX_DATASETS = ("carconf", "dublinwest", "gaming", "nascar", "occup", "rice")
#: Rank data sets of the R package Rankcluster.
RANKCLUSTER_DATASETS = ("big4", "eurovision", "quiz", "sports", "words")

_HOME_HINT = (
    "The data home is {home} (set the RANKCLUST_DATA environment variable or pass "
    "data_home= to use another folder)."
)
_PREFLIB_HOW = (
    "download the file from PrefLib (https://www.preflib.org, or "
    "https://github.com/PrefLib/PrefLib-Data, folder 'datasets/{series}') and put it in "
    "{folder} (PrefLib asks you to cite the data set's 'Required Citations')."
)
_PLMIX_HOW = (
    "the data ship with the R package PLMIX (GPL >= 2, https://github.com/cran/PLMIX, "
    "data/{rdata}). Convert it to CSV, e.g. in Python: `import pyreadr; "
    "pyreadr.read_r('{rdata}')['{obj}'].astype(int).to_csv('{dest}', index=False)` "
    "(columns Rank_1..Rank_K: the item in each position, 0 = unfilled)."
)


def _locate(relpath: str, data_home: Any, what: str, how: str) -> Path:
    """Path of ``relpath`` (or ``relpath + ".gz"``) in the data home, else an informative error."""
    home = get_data_home(data_home)
    path = home / relpath
    for candidate in (path, path.with_name(path.name + ".gz")):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"{what}: {path} was not found. {_HOME_HINT.format(home=home)} To obtain it: {how}"
    )


# --------------------------------------------------------------------------------------------
# SUSHI
# --------------------------------------------------------------------------------------------
_SUSHI_HOW = (
    "download sushi3-2016.zip from Kamishima's site http://www.kamishima.net/sushi/ (its "
    "licence allows research use but forbids redistribution, so rankclust cannot ship it) and "
    "unpack {files} into {folder}."
)


def _sushi_names(readme: Path, item_set: str) -> list[str] | None:
    """Item names parsed from the data set's README-en.txt, or None when it is absent/odd."""
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8", errors="replace")
    a = text.find("*** ID for the item set A")
    b = text.find("*** ID for the item set B")
    if a < 0 or b < 0:
        return None
    if item_set == "A":
        pairs = re.findall(r"(\d+):(\S+)", text[a:b])
        m = 10
    else:
        end = text.find("###", b)
        section = text[b : end if end >= 0 else len(text)]
        pairs = re.findall(r"^\s*(\d+):(.+?)\s*$", section, flags=re.MULTILINE)
        m = 100
    full = {int(i): nm.strip() for i, nm in pairs}
    if sorted(full) != list(range(m)):
        return None
    # the short (romanised) name, up to the English gloss in brackets; the full text if it
    # would clash with another item's short name
    short = {i: re.split(r" [({]", nm, maxsplit=1)[0] for i, nm in full.items()}
    counts: dict[str, int] = {}
    for nm in short.values():
        counts[nm] = counts.get(nm, 0) + 1
    return [short[i] if counts[short[i]] == 1 else full[i] for i in range(m)]


def fetch_sushi(
    set: str = "A",  # the data set's own name for its two item sets
    *,
    return_features: bool = False,
    kind: str = "subset",
    data_home: Any = None,
) -> Rankings | tuple[np.ndarray, Rankings]:
    """Load Kamishima's SUSHI preference orders from the data home.

    Parameters
    ----------
    set : {"A", "B"}, default="A"
        Item set A: 5000 complete orders of 10 sushis. Item set B: 5000 orders of 10 out of
        100 sushis (chains, kind ``"subset"``).
    return_features : bool, default=False
        Also return the users' features (``sushi3/sushi3.udata``), for label ranking.
    kind : {"subset", "top"}, default="subset"
    data_home : str or os.PathLike, optional
        See :func:`get_data_home`.

    Returns
    -------
    R : Rankings, shape (5000, 10) for set A or (5000, 100) for set B
        Item names come from ``sushi3/README-en.txt`` when it is in the data home.
    X : ndarray of int64, shape (5000, 10)
        Only with ``return_features=True``, returned as ``(X, R)``: the columns of
        :data:`rankclust.io.SUSHI_USER_FEATURES`.

    Raises
    ------
    FileNotFoundError
        When the files are not in the data home (the message says how to get them).

    References
    ----------
    T. Kamishima, "Nantonac Collaborative Filtering: Recommendation Based on Order
    Responses", KDD 2003, pp. 583-588.
    """
    item_set = str(set).upper()
    if item_set not in ("A", "B"):
        raise ValueError(f"set must be 'A' or 'B', got {set!r}")
    fname = f"sushi3{item_set.lower()}.5000.10.order"
    home = get_data_home(data_home)
    how = _SUSHI_HOW.format(files=f"{fname} and sushi3.udata", folder=home / "sushi3")
    path = _locate(f"sushi3/{fname}", data_home, f"SUSHI item set {item_set}", how)
    names = _sushi_names(path.parent / "README-en.txt", item_set)
    R = read_sushi_order(path, kind=kind, items=names)
    if not return_features:
        return R
    upath = _locate("sushi3/sushi3.udata", data_home, "SUSHI user features", how)
    _, X = read_sushi_udata(upath)
    if X.shape[0] != R.n_rankings:
        raise ValueError(f"{upath} has {X.shape[0]} users but {path} has {R.n_rankings} orders")
    return X, R


# --------------------------------------------------------------------------------------------
# APA 1980, German political goals, PLMIX, Rankcluster
# --------------------------------------------------------------------------------------------
def fetch_apa(*, complete_only: bool = False, data_home: Any = None) -> Rankings:
    """Load the 1980 APA presidential election ballots (Diaconis 1988) from the data home.

    Parameters
    ----------
    complete_only : bool, default=False
        Keep only the 5,738 complete rankings (PLMIX stores top-4 ballots as complete).
    data_home : str or os.PathLike, optional

    Returns
    -------
    R : Rankings, shape (15449, 5) (or (5738, 5)), kind "top"
        Partial top orderings of 5 candidates: 5,141 ballots name 1 candidate, 2,462 name 2,
        2,108 name 3 and 5,738 are complete. Candidates 1 and 3 were research psychologists,
        4 and 5 clinical psychologists, 2 a community psychologist; their names were not
        published, so the items are ``"Candidate 1"`` ... ``"Candidate 5"``.

    Raises
    ------
    FileNotFoundError
        When ``apa_1980/d_apa_orderings.csv`` is not in the data home.

    References
    ----------
    P. Diaconis, *Group representations in probability and statistics*, IMS Lecture Notes
    11, 1988, pp. 94-96. C. Mollica and L. Tardella, Psychometrika 82(2), 2017.
    """
    dest = get_data_home(data_home) / "apa_1980" / "d_apa_orderings.csv"
    how = _PLMIX_HOW.format(rdata="d_apa.RData", obj="d_apa", dest=dest)
    path = _locate("apa_1980/d_apa_orderings.csv", data_home, "APA 1980 ballots", how)
    items = [f"Candidate {j}" for j in range(1, 6)]
    R = read_orderings_csv(path, kind="top", n_items=5, items=items)
    return R[R.lengths == R.n_items] if complete_only else R


#: Croon's four political goals (Inglehart items), in item order.
_GERMAN_ITEMS = ("order", "say in government", "fight rising prices", "free speech")


def fetch_german(*, data_home: Any = None) -> Rankings:
    """Load Croon's German political goals data (2,262 complete rankings of 4 goals).

    Returns
    -------
    R : Rankings, shape (2262, 4)
        Items: maintain order, more say in government, fight rising prices, protect free
        speech.

    Raises
    ------
    FileNotFoundError
        When ``german_political_goals/d_german_orderings.csv`` is not in the data home.

    References
    ----------
    M. A. Croon, "Latent class models for the analysis of rankings", in *New Developments
    in Psychological Choice Modeling*, 1989, pp. 99-121.
    """
    rel = "german_political_goals/d_german_orderings.csv"
    how = _PLMIX_HOW.format(
        rdata="d_german.RData", obj="d_german", dest=get_data_home(data_home) / rel
    )
    path = _locate(rel, data_home, "German political goals", how)
    return read_orderings_csv(path, kind="top", n_items=4, items=_GERMAN_ITEMS)


def fetch_plmix(name: str, *, kind: str = "top", data_home: Any = None) -> Rankings:
    """Load an ordering data set of the R package PLMIX from the data home.

    Parameters
    ----------
    name : str
        One of :data:`PLMIX_DATASETS`: ``"carconf"`` (435 x 6), ``"dublinwest"``
        (29,988 x 9), ``"gaming"`` (91 x 6), ``"nascar"`` (36 races, 43 of 87 drivers each),
        ``"occup"`` (143 x 10), ``"rice"`` (300 x 5).
    kind : {"top", "subset"}, default="top"
        PLMIX treats the data as partial top orderings. For ``"nascar"`` the unlisted drivers
        did not race, so ``"subset"`` may suit better.
    data_home : str or os.PathLike, optional

    Returns
    -------
    R : Rankings

    Raises
    ------
    FileNotFoundError
        When ``plmix_misc/d_<name>_orderings.csv`` is not in the data home.

    References
    ----------
    C. Mollica and L. Tardella, "Bayesian Plackett-Luce mixture models for partially ranked
    data", Psychometrika 82(2), 2017.
    """
    name = _check_name(name, PLMIX_DATASETS, "PLMIX data set")
    rel = f"plmix_misc/d_{name}_orderings.csv"
    how = _PLMIX_HOW.format(
        rdata=f"d_{name}.RData", obj=f"d_{name}", dest=get_data_home(data_home) / rel
    )
    path = _locate(rel, data_home, f"PLMIX data set d_{name}", how)
    return read_orderings_csv(path, kind=kind)


def fetch_rankcluster(name: str, *, data_home: Any = None) -> list[Rankings]:
    """Load a (multivariate, partial) rank data set of the R package Rankcluster.

    Parameters
    ----------
    name : str
        One of :data:`RANKCLUSTER_DATASETS`: ``"big4"`` (21 x 2 dims x 4), ``"eurovision"``
        (34 x 6 x 8, partial), ``"quiz"`` (70 x 4 x 4), ``"sports"`` (130 x 7), ``"words"``
        (98 x 5).
    data_home : str or os.PathLike, optional

    Returns
    -------
    dims : list of Rankings
        One per dimension, rows aligned, kind ``"subset"`` (missing ranks unknown).

    Raises
    ------
    FileNotFoundError
        When ``rankcluster_misc/<name>_rankings.csv`` is not in the data home.

    References
    ----------
    J. Jacques, Q. Grimonprez and C. Biernacki, "Rankcluster: An R package for clustering
    multivariate partial rankings", The R Journal 6(1), 2014.
    """
    name = _check_name(name, RANKCLUSTER_DATASETS, "Rankcluster data set")
    rel = f"rankcluster_misc/{name}_rankings.csv"
    how = (
        "the data ship with the R package Rankcluster (GPL >= 2 / AGPL v3, "
        f"https://github.com/modal-inria/Rankcluster, data/{name}.rda). Write the rank matrix "
        "(list element 'data') to CSV with header dim<d>_obj<j>, 0 for a missing rank, to "
        f"{get_data_home(data_home) / rel}."
    )
    path = _locate(rel, data_home, f"Rankcluster data set {name}", how)
    return read_rankcluster_csv(path)


# --------------------------------------------------------------------------------------------
# PrefLib
# --------------------------------------------------------------------------------------------
_PREFLIB_FILE = re.compile(r"(\d{5})-\d{8}(\.(soc|soi|toc|toi))?\Z")


def fetch_preflib(
    name: str, *, kind: str | None = None, strict: bool = True, data_home: Any = None
) -> Rankings:
    """Load a PrefLib ``.soc``/``.soi``/``.toc``/``.toi`` file from the data home.

    Parameters
    ----------
    name : str
        A PrefLib file name such as ``"00001-00000001.soi"`` (the extension may be left out)
        or a path relative to the data home. The data home is searched recursively.
    kind : {"top", "subset"}, optional
        Default ``"top"`` (ballots), see :func:`rankclust.io.read_preflib`.
    strict : bool, default=True
    data_home : str or os.PathLike, optional

    Returns
    -------
    R : Rankings
        Weighted by the counts, items named after the candidates.

    Raises
    ------
    FileNotFoundError
        When no such file is in the data home.
    """
    home = get_data_home(data_home)
    direct = home / name
    if direct.is_file():
        return read_preflib(direct, kind=kind, strict=strict)
    base = os.path.basename(name)
    mm = _PREFLIB_FILE.match(base)
    patterns = [base, base + ".gz"] if mm and mm.group(2) else [base + ".*"]
    found: list[Path] = []
    if home.is_dir():
        for pat in patterns:
            found += [
                p
                for p in home.rglob(pat)
                if p.is_file()
                and p.name.removesuffix(".gz").rsplit(".", 1)[-1] in ("soc", "soi", "toc", "toi")
            ]
    if not found:
        series = f"{mm.group(1)} - ..." if mm else "<series> - <name>"
        how = _PREFLIB_HOW.format(series=series, folder=f"a sub-folder of {home}")
        raise FileNotFoundError(
            f"PrefLib file {name!r} was not found in the data home. "
            f"{_HOME_HINT.format(home=home)} To obtain it: {how}"
        )
    return read_preflib(sorted(found)[0], kind=kind, strict=strict)


_IRISH = {"north": 1, "west": 2, "meath": 3}


def fetch_irish_election(
    constituency: str = "north", *, kind: str | None = None, data_home: Any = None
) -> Rankings:
    """Load the 2002 Irish general election ballots (PrefLib series 00001).

    Parameters
    ----------
    constituency : {"north", "west", "meath"}, default="north"
        Dublin North (43,942 ballots, 12 candidates), Dublin West (29,988, 9) or Meath
        (64,081, 14).
    kind : {"top", "subset"}, optional
        Default ``"top"``: a candidate left off a ballot ranks below the listed ones.
    data_home : str or os.PathLike, optional

    Returns
    -------
    R : Rankings
        One row per distinct ballot, weighted by its count; items = candidate names.

    Raises
    ------
    FileNotFoundError
        When ``irish_election_2002/00001-0000000<k>.soi`` is not in the data home.

    References
    ----------
    N. Mattei and T. Walsh, "PrefLib: A Library of Preference Data", ADT 2013. Data from
    J. O'Neill, *Open STV*, www.OpenSTV.org, 2013.
    """
    key = _check_name(constituency, tuple(_IRISH), "constituency")
    fname = f"00001-{_IRISH[key]:08d}.soi"
    how = _PREFLIB_HOW.format(
        series="00001 - irish", folder=get_data_home(data_home) / "irish_election_2002"
    )
    path = _locate(f"irish_election_2002/{fname}", data_home, f"Irish election 2002 ({key})", how)
    return read_preflib(path, kind=kind)


def fetch_apa_elections(year: int, *, kind: str | None = None, data_home: Any = None) -> Rankings:
    """Load one of the APA elections 1998-2009 (PrefLib series 00028; 5 candidates).

    Parameters
    ----------
    year : int
        1998 to 2009.
    kind : {"top", "subset"}, optional
    data_home : str or os.PathLike, optional

    Returns
    -------
    R : Rankings
        Weighted by ballot counts (13,318 to 20,239 ballots per year).

    Raises
    ------
    FileNotFoundError
        When ``apa_elections_1998_2009/00028-000000<NN>.soi`` is not in the data home.

    References
    ----------
    S. Popov, A. Popova and M. Regenwetter, "Consensus formation in organizations: Hunting
    for the social choice conundrum in APA elections", Decision, 2015.
    """
    if (
        isinstance(year, bool)
        or not isinstance(year, int | np.integer)
        or not 1998 <= year <= 2009
    ):
        raise ValueError(f"year must be an int in 1998..2009, got {year!r}")
    fname = f"00028-{int(year) - 1997:08d}.soi"
    how = _PREFLIB_HOW.format(
        series="00028 - apa", folder=get_data_home(data_home) / "apa_elections_1998_2009"
    )
    path = _locate(f"apa_elections_1998_2009/{fname}", data_home, f"APA election {year}", how)
    return read_preflib(path, kind=kind)


# --------------------------------------------------------------------------------------------
# MSNBC, partial label ranking
# --------------------------------------------------------------------------------------------
def fetch_msnbc(*, max_rows: int | None = None, data_home: Any = None) -> Rankings:
    """Load the MSNBC.com page-category sequences as first-visit chains (kind "subset").

    Parameters
    ----------
    max_rows : int, optional
        Read only the first ``max_rows`` users (the file has 989,818).
    data_home : str or os.PathLike, optional

    Returns
    -------
    R : Rankings, shape (n_users, 17)
        Items are the 17 page categories (``frontpage``, ``news``, ...). See
        :func:`rankclust.io.read_msnbc`.

    Raises
    ------
    FileNotFoundError
        When ``msnbc/msnbc990928.seq`` is not in the data home.

    References
    ----------
    I. Cadez, D. Heckerman, C. Meek, P. Smyth and S. White, Data Mining and Knowledge
    Discovery 7(4), 2003.
    """
    how = (
        "download 'MSNBC.com Anonymous Web Data' from the UCI Machine Learning Repository "
        "(https://archive.ics.uci.edu, file msnbc990928.seq in msnbc990928.zip) and put "
        f"msnbc990928.seq in {get_data_home(data_home) / 'msnbc'}."
    )
    path = _locate("msnbc/msnbc990928.seq", data_home, "MSNBC sequences", how)
    return read_msnbc(path, max_rows=max_rows)


def fetch_label_ranking_partial(
    name: str, *, data_home: Any = None
) -> tuple[np.ndarray, Rankings]:
    """Load a partial label ranking set (bucket orders: ties allowed) from the data home.

    Parameters
    ----------
    name : str
        One of :data:`PARTIAL_LABEL_RANKING_DATASETS`.
    data_home : str or os.PathLike, optional

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features)
    Y : Rankings, shape (n_samples, n_labels), with ties

    Raises
    ------
    FileNotFoundError
        When ``partial_label_ranking_alfaro/<name>.csv`` is not in the data home.

    References
    ----------
    J. C. Alfaro, J. A. Aledo and J. A. Gámez, "Learning decision trees for the Partial Label
    Ranking problem", International Journal of Intelligent Systems, 2021.
    """
    name = _check_name(name, PARTIAL_LABEL_RANKING_DATASETS, "partial label ranking data set")
    rel = f"partial_label_ranking_alfaro/{name}.csv"
    how = (
        "take sklr/datasets/data/partial_label_ranking/" + name + ".csv from "
        "https://github.com/alfaro96/scikit-lr at commit 1525ae99c97db9f62928143e1cd973fe74ee85a2 "
        f"(MIT licence) and put it in {get_data_home(data_home) / 'partial_label_ranking_alfaro'}."
    )
    path = _locate(rel, data_home, f"partial label ranking data set {name}", how)
    return read_label_ranking_csv(path)
