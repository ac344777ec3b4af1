"""Tests of the mixtures of experts (rankclust.cluster._experts and _gate): mixtures whose
weights are a multinomial logit of respondent covariates, fitted with fit(R, X=...)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings, persistence
from rankclust.cluster import MallowsMixture, PlackettLuceMixture, select_k
from rankclust.cluster import _experts as EX
from rankclust.cluster import _gate as GT
from rankclust.distances import kendall_distances
from rankclust.models import Mallows, PlackettLuce

CENTERS = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]


def simulate(n, gamma, *, model="mallows", theta=1.5, scores=None, seed=0, m=5):
    """Rankings from the model: covariates X ~ N(0, 1), segment z ~ softmax(gamma [1, x]),
    then a ranking from component z (Mallows at CENTERS[z], or Plackett-Luce ``scores[z]``)."""
    rng = np.random.RandomState(seed)
    gamma = np.asarray(gamma, dtype=float)
    X = rng.normal(size=(n, gamma.shape[1] - 1))
    p = np.exp(GT.gate_log_probs(np.c_[np.ones(n), X], gamma))
    z = (rng.random_sample(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    ranks = np.zeros((n, m), dtype=np.int64)
    for k in range(gamma.shape[0]):
        idx = np.flatnonzero(z == k)
        if model == "mallows":
            comp = Mallows.from_params(center=CENTERS[k][:m], theta=theta)
        else:
            comp = PlackettLuce.from_params(scores=scores[k])
        ranks[idx] = comp.sample(len(idx), random_state=seed + 1 + k).ranks
    return Rankings(ranks), X, z


GAMMA = [[0.0, 0.0, 0.0], [0.3, 1.5, -1.0]]


@pytest.fixture(scope="module")
def mallows_data():
    return simulate(600, GAMMA, seed=0)


@pytest.fixture(scope="module")
def mallows_fit(mallows_data):
    R, X, _ = mallows_data
    return MallowsMixture(2, n_init=3, random_state=0, gate_penalty=0.0).fit(R, X=X)


# --------------------------------------------------------------------------------------------
# the gate's mathematics
# --------------------------------------------------------------------------------------------
def test_gate_gradient_matches_finite_differences():
    rng = np.random.RandomState(1)
    n, d, k = 40, 3, 3
    Z = np.c_[np.ones(n), rng.normal(size=(n, d))]
    q = rng.dirichlet(np.ones(k), size=n)
    wq = rng.uniform(0.5, 2.0, size=n)[:, None] * q
    flat = rng.normal(size=(k - 1) * (d + 1))
    f, g = GT.gate_objective(flat, Z, wq, 0.7)
    num = np.zeros_like(flat)
    for j in range(flat.size):
        e = np.zeros_like(flat)
        e[j] = 1e-6
        num[j] = (
            GT.gate_objective(flat + e, Z, wq, 0.7)[0] - GT.gate_objective(flat - e, Z, wq, 0.7)[0]
        ) / 2e-6
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-6)
    # the objective itself, written out
    gamma = np.vstack([np.zeros(d + 1), flat.reshape(k - 1, -1)])
    eta = Z @ gamma.T
    want = -np.sum(wq * (eta - logsumexp(eta, axis=1, keepdims=True)))
    want += 0.35 * np.sum(gamma[1:, 1:] ** 2)
    assert f == pytest.approx(want, rel=1e-12)


def test_gate_m_step_solves_the_weighted_logistic_regression():
    rng = np.random.RandomState(2)
    n, d, k = 200, 2, 3
    Z = np.c_[np.ones(n), rng.normal(size=(n, d))]
    wq = rng.dirichlet(np.ones(k), size=n)
    gamma = GT.fit_gate(Z, wq, np.zeros((k, d + 1)), 0.5)
    _, g = GT.gate_objective(gamma[1:].ravel(), Z, wq, 0.5)
    assert np.abs(g).max() < 1e-5 * n
    assert np.all(gamma[0] == 0)
    # no covariates: the closed form is the plain mixture's weights
    g0 = GT.fit_gate(Z[:, :1], wq, np.zeros((k, 1)), 0.5)
    nk = wq.sum(axis=0)
    np.testing.assert_allclose(np.exp(g0[:, 0]) / np.exp(g0[:, 0]).sum(), nk / nk.sum())


# --------------------------------------------------------------------------------------------
# a constant gate is the plain mixture
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_gate_without_covariates_equals_the_plain_mixture(cls, mallows_data):
    R, _, _ = mallows_data
    plain = cls(2, n_init=3, random_state=0).fit(R)
    const = cls(2, n_init=3, random_state=0).fit(R, X=np.zeros((R.n_rankings, 0)))
    assert const.log_likelihood_ == pytest.approx(plain.log_likelihood_, rel=1e-9)
    np.testing.assert_allclose(const.weights_, plain.weights_, atol=1e-5)
    assert const.centers_.to_orderings() == plain.centers_.to_orderings()
    if cls is MallowsMixture:
        np.testing.assert_allclose(const.thetas_, plain.thetas_, rtol=1e-4)
    else:
        np.testing.assert_allclose(const.scores_, plain.scores_, atol=1e-4)
    assert const.bic_ == pytest.approx(plain.bic_, rel=1e-9)
    assert const.gate_coef_.shape == (2, 1)
    np.testing.assert_allclose(
        const.predict_proba_from_covariates(np.zeros((3, 0))), np.tile(const.weights_, (3, 1))
    )


def test_huge_gate_penalty_equals_the_plain_mixture(mallows_data):
    R, X, _ = mallows_data
    plain = MallowsMixture(2, n_init=3, random_state=0).fit(R)
    flat = MallowsMixture(2, n_init=3, random_state=0, gate_penalty=1e12).fit(R, X=X)
    assert np.abs(flat.gate_coef_[:, 1:]).max() < 1e-6
    assert flat.log_likelihood_ == pytest.approx(plain.log_likelihood_, rel=1e-8)
    np.testing.assert_allclose(flat.weights_, plain.weights_, atol=1e-5)
    np.testing.assert_allclose(flat.thetas_, plain.thetas_, rtol=1e-4)


# --------------------------------------------------------------------------------------------
# the likelihood, by enumeration
# --------------------------------------------------------------------------------------------
def _brute_mallows(ranks, centers, thetas):
    """(n, K) log P_k of complete rankings, the normaliser by enumerating S(m)."""
    m = ranks.shape[1]
    full = Rankings(np.argsort(np.array(list(itertools.permutations(range(m)))), axis=1))
    out = []
    for c, th in zip(centers, thetas, strict=True):
        log_z = logsumexp(-th * kendall_distances(full, c))
        out.append(-th * kendall_distances(Rankings(ranks), c) - log_z)
    return np.stack(out, axis=1)


def _brute_pl(ranks, scores):
    """(n, K) log Plackett-Luce probabilities of complete rankings, stage by stage."""
    out = np.zeros((len(ranks), len(scores)))
    for i, r in enumerate(ranks):
        order = np.argsort(r)
        for k, z in enumerate(scores):
            zs = z[order]
            out[i, k] = sum(zs[t] - logsumexp(zs[t:]) for t in range(len(zs)))
    return out


def test_log_likelihood_equals_brute_force_sum(mallows_fit, mallows_data):
    R, X, _ = mallows_data
    est = mallows_fit
    comp = _brute_mallows(R.ranks, est.center_positions_, est.thetas_)
    eta = np.c_[np.ones(len(X)), X] @ est.gate_coef_.T
    log_gate = eta - logsumexp(eta, axis=1, keepdims=True)
    rows = logsumexp(comp + log_gate, axis=1)
    assert est.log_likelihood_ == pytest.approx(rows.sum(), rel=1e-10)
    np.testing.assert_allclose(est.score_samples(R, X), rows, rtol=1e-10)
    post = np.exp(comp + log_gate - rows[:, None])
    np.testing.assert_allclose(est.predict_proba(R, X), post, atol=1e-10)


def test_plackett_luce_log_likelihood_equals_brute_force():
    scores = np.array([[1.0, 0.5, 0.0, -0.5, -1.0], [-1.0, -0.5, 0.0, 0.5, 1.0]])
    R, X, _ = simulate(300, GAMMA, model="pl", scores=scores * 1.5, seed=3)
    est = PlackettLuceMixture(2, n_init=2, random_state=0).fit(R, X=X)
    comp = _brute_pl(R.ranks, est.scores_)
    eta = np.c_[np.ones(len(X)), X] @ est.gate_coef_.T
    rows = logsumexp(comp + eta - logsumexp(eta, axis=1, keepdims=True), axis=1)
    assert est.log_likelihood_ == pytest.approx(rows.sum(), rel=1e-10)
    assert np.diff(est.log_likelihood_history_).min() >= -1e-9 * abs(est.log_likelihood_)


# --------------------------------------------------------------------------------------------
# EM and the observed information
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_em_trace_never_decreases(cls):
    R, X, _ = simulate(400, [[0, 0, 0], [0.0, 1.0, 0.5]], theta=0.8, seed=5)
    est = cls(2, n_init=2, random_state=1, gate_penalty=0.5).fit(R, X=X)
    hist = est.log_likelihood_history_
    assert len(hist) > 2
    assert np.diff(hist).min() >= -1e-9 * abs(hist[-1])
    # the start from the plain mixture is at least as likely as the plain mixture
    assert est.log_likelihood_ >= est.plain_log_likelihood_ - 1e-6


def test_observed_information_equals_numerical_hessian(mallows_fit, mallows_data):
    R, X, _ = mallows_data
    est = mallows_fit
    ed, *_ = EX._compile(est, R, X, None)
    # the fitted gate on the standardised scale (row 0 zero): invert gate_coef_'s map
    mean, scale = est.gate_mean_, est.gate_scale_
    gamma = est.gate_coef_.copy()
    gamma[:, 1:] = est.gate_coef_[:, 1:] * scale
    gamma[:, 0] = est.gate_coef_[:, 0] + est.gate_coef_[:, 1:] @ mean
    centers = est.center_positions_
    q, _, _ = EX._e_step(est, ed, {"centers": centers, "thetas": est.thetas_}, gamma)
    info, n_g = EX._louis_information(est, ed, q, gamma)

    def loglik(phi):
        g = np.vstack([np.zeros(3), phi[:n_g].reshape(1, 3)])
        return EX._e_step(est, ed, {"centers": centers, "thetas": phi[n_g:]}, g)[1]

    phi0 = np.concatenate([gamma[1:].ravel(), est.thetas_])
    h = 1e-4
    p = phi0.size
    hess = np.zeros((p, p))
    for a in range(p):
        for b in range(p):
            ea, eb = np.eye(p)[a] * h, np.eye(p)[b] * h
            hess[a, b] = (
                loglik(phi0 + ea + eb) - loglik(phi0 + ea - eb)
                - loglik(phi0 - ea + eb) + loglik(phi0 - ea - eb)
            ) / (4 * h * h)  # fmt: skip
    np.testing.assert_allclose(info, -hess, rtol=2e-4, atol=1e-2)


def test_recovers_a_covariate_driven_segmentation():
    R, X, z = simulate(1500, GAMMA, seed=11)
    est = MallowsMixture(2, n_init=3, random_state=0, gate_penalty=0.0).fit(R, X=X)
    assert adjusted_rand_score(z, est.labels_) > 0.8
    truth = np.asarray(GAMMA)[1]
    # the reference is the larger component: if it is the simulation's component 1, the
    # fitted row is minus the truth
    if est.centers_.to_orderings()[0] == CENTERS[1]:
        truth = -truth
    err = np.abs(est.gate_coef_[1] - truth) / est.gate_coef_se_[1]
    assert np.all(err < 3.5), (est.gate_coef_, est.gate_coef_se_)
    assert np.all(est.gate_coef_se_[1] > 0) and np.all(est.gate_coef_se_[1] < 0.5)
    # the gate alone puts people in their segment more often than the weights do
    from_x = np.argmax(est.predict_proba_from_covariates(X), axis=1)
    seg = np.array([CENTERS.index(c) for c in est.centers_.to_orderings()])
    assert np.mean(seg[from_x] == z) > max(np.mean(z), 1 - np.mean(z)) + 0.05
    np.testing.assert_array_equal(
        est.predict_ranking_from_covariates(X[:5], how="modal"), est.centers_.ranks[from_x[:5]]
    )


def test_consensus_ranking_from_covariates(mallows_fit, mallows_data):
    _, X, _ = mallows_data
    est = mallows_fit
    pi = est.predict_proba_from_covariates(X)
    got = est.predict_ranking_from_covariates(X)
    centres = est.centers_.ranks
    for i in range(0, 600, 37):  # Borda by hand: items by gate-weighted mean position
        score = [sum(pi[i, k] * centres[k, j] for k in range(2)) for j in range(5)]
        order = sorted(range(5), key=lambda j: (score[j], j))
        assert [int(np.flatnonzero(got[i] == t)[0]) for t in range(5)] == order
    sure = pi.max(axis=1) > 0.99  # a sure gate: the consensus is the modal ranking
    assert sure.any()
    np.testing.assert_array_equal(
        got[sure], est.predict_ranking_from_covariates(X[sure], how="modal")
    )
    with pytest.raises(ValueError, match="how"):
        est.predict_ranking_from_covariates(X, how="kemeny")


def test_weighted_equals_expanded():
    R, X, _ = simulate(200, GAMMA, seed=7)
    counts = np.random.RandomState(0).randint(1, 4, size=200)
    Rw = R.with_weights(counts.astype(float))
    Re = Rankings(np.repeat(R.ranks, counts, axis=0))
    Xe = np.repeat(X, counts, axis=0)
    a = MallowsMixture(2, n_init=2, random_state=0).fit(Rw, X=X)
    b = MallowsMixture(2, n_init=2, random_state=0).fit(Re, X=Xe)
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-9)
    np.testing.assert_allclose(a.gate_coef_, b.gate_coef_, atol=1e-5)
    np.testing.assert_allclose(a.gate_coef_se_, b.gate_coef_se_, rtol=1e-4)
    c = MallowsMixture(2, n_init=2, random_state=0).fit(R, X=X, sample_weight=counts)
    assert c.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-9)


def test_select_k_with_covariates(mallows_data):
    R, X, _ = mallows_data
    res = select_k(MallowsMixture(n_init=2, random_state=0), R, ks=[1, 2, 3], X=X)
    assert res.best_k == 2
    rows = {row["k"]: row for row in res.table}
    plain = MallowsMixture(2, n_init=2, random_state=0).fit(R)
    assert rows[2]["n_parameters"] == plain.n_parameters_ + 2
    assert res.best_estimator.gate_coef_.shape == (2, 3)


# --------------------------------------------------------------------------------------------
# boundary, persistence
# --------------------------------------------------------------------------------------------
def test_bad_input_is_refused(mallows_fit, mallows_data):
    R, X, _ = mallows_data
    with pytest.raises(ValueError, match="X has 599 rows but R has 600"):
        MallowsMixture(2, n_init=1).fit(R, X=X[:-1])
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MallowsMixture(2, n_init=1).fit(R, X=bad)
    with pytest.raises(ValueError, match="fitted with 2"):
        mallows_fit.predict_proba(R, X[:, :1])
    with pytest.raises(ValueError, match="fitted without covariates"):
        MallowsMixture(2, n_init=1, random_state=0).fit(R).predict_proba_from_covariates(X)
    with pytest.raises(ValueError, match="X"):
        mallows_fit.predict_proba(R)  # fitted with covariates: X is needed
    with pytest.raises(ValueError, match="in memory only"):
        MallowsMixture(2, backend="dask").fit(R, X=X)


def test_refit_without_covariates_drops_the_gate(mallows_data):
    R, X, _ = mallows_data
    est = MallowsMixture(2, n_init=2, random_state=0).fit(R, X=X)
    est.fit(R)
    assert not hasattr(est, "gate_coef_") and not hasattr(est, "n_features_in_")
    assert est.predict_proba(R).shape == (600, 2)


def test_persistence_round_trip(mallows_fit, mallows_data, tmp_path):
    R, X, _ = mallows_data
    path = tmp_path / "experts.zip"
    persistence.save(mallows_fit, path)
    back = persistence.load(path)
    np.testing.assert_array_equal(back.gate_coef_, mallows_fit.gate_coef_)
    np.testing.assert_allclose(back.predict_proba(R, X), mallows_fit.predict_proba(R, X))
    np.testing.assert_array_equal(
        back.predict_ranking_from_covariates(X), mallows_fit.predict_ranking_from_covariates(X)
    )
    back.gate_coef_ = back.gate_coef_ + 1.0  # the reference row is no longer zero
    with pytest.raises(ValueError, match="reference"):
        back._validate_loaded_state()
    back.gate_coef_ = mallows_fit.gate_coef_[:, :2].copy()
    with pytest.raises(ValueError, match="gate_mean_"):
        back._validate_loaded_state()


def test_gate_coefficients_table(mallows_fit):
    from rankclust.cluster import gate_coefficients

    tab = gate_coefficients(mallows_fit, feature_names=["a", "b"], level=0.9)
    assert tab.names == ["intercept", "a", "b"]
    np.testing.assert_allclose(tab.upper - tab.coef, 1.6448536 * mallows_fit.gate_coef_se_)
    z = mallows_fit.gate_coef_[1] / mallows_fit.gate_coef_se_[1]
    from scipy.stats import norm

    np.testing.assert_allclose(tab.p_values[1], 2 * norm.sf(np.abs(z)))
    md = tab.to_markdown()
    assert md.count("\n") == 4 and "| 1 vs 0 | b |" in md
    with pytest.raises(ValueError, match="2 covariates"):
        gate_coefficients(mallows_fit, feature_names=["a"])


# --------------------------------------------------------------------------------------------
# the command line: --features
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cli_files(tmp_path_factory, mallows_data):
    from rankclust.io import write_orderings_csv

    R, X, _ = mallows_data
    d = tmp_path_factory.mktemp("experts_cli")
    write_orderings_csv(R[:300], d / "r.csv")
    rows = ["income,age"] + [f"{a:.6f},{b:.6f}" for a, b in X[:300]]
    (d / "x.csv").write_text("\n".join(rows) + "\n")
    return d, R[:300], X[:300]


def test_cli_cluster_with_features(cli_files, capsys, tmp_path):
    from tests._cli import one_line_error, run

    d, R, X = cli_files
    out_json = tmp_path / "r.json"
    args = ["--features", d / "x.csv", "--n-init", 2, "--random-state", 0, "--quiet"]
    model = tmp_path / "m.zip"
    code, out, err = run(capsys, "cluster", d / "r.csv", "-k", 2, *args, "--json", out_json,
                         "--save", model)  # fmt: skip
    assert code == 0, err
    code, _, err = run(capsys, "predict", model, d / "r.csv")
    one_line_error(code, err, "fitted with covariates")
    est = MallowsMixture(2, n_init=2, random_state=0).fit(R, X=X)
    assert "Gate (mixture of experts)" in out and "income" in out and "age" in out
    import json

    gate = json.loads(out_json.read_text())["gate"]
    assert gate["features"] == ["income", "age"]
    np.testing.assert_allclose(gate["coef"], est.gate_coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gate["se"], est.gate_coef_se_, rtol=1e-6, atol=1e-9)
    code, out, err = run(capsys, "select-k", d / "r.csv", "--ks", "1,2", *args,
                         "--method", "pl-mixture")  # fmt: skip
    assert code == 0, err
    assert "best K=2" in out and "2 vs 0" not in out and "1 vs 0" in out


def test_cli_features_refusals(cli_files, capsys, tmp_path):
    from tests._cli import one_line_error, run

    d, _, X = cli_files
    short = tmp_path / "short.csv"
    short.write_text("\n".join(f"{a},{b}" for a, b in X[:299]) + "\n")
    code, _, err = run(capsys, "cluster", d / "r.csv", "-k", 2, "--features", short)
    one_line_error(code, err, "short.csv", "299 rows of features", "300 rankings")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3,oops\n" + "\n".join(f"{a},{b}" for a, b in X[2:300]) + "\n")
    code, _, err = run(capsys, "cluster", d / "r.csv", "-k", 2, "--features", bad)
    one_line_error(code, err, "bad.csv", "line 3", "oops")
    code, _, err = run(capsys, "cluster", d / "r.csv", "-k", 2, "--features", d / "x.csv",
                       "--method", "chains")  # fmt: skip
    one_line_error(code, err, "--features", "chains")
    code, _, err = run(capsys, "cluster", d / "r.csv", "-k", 2, "--features", d / "x.csv",
                       "--skip-malformed")  # fmt: skip
    one_line_error(code, err, "--features", "--skip-malformed")
    code, _, err = run(capsys, "significance", d / "r.csv", "-k", 2, "--features", d / "x.csv")
    one_line_error(code, err, "--features")
    code, _, err = run(capsys, "select-k", d / "r.csv", "--format", "pairs", "--features",
                       d / "x.csv")  # fmt: skip
    one_line_error(code, err, "--features", "pairwise")


def test_plackett_luce_observed_information_equals_numerical_hessian():
    from rankclust.cluster._mixture_information import _sum_zero_basis

    scores = np.array([[0.8, 0.4, 0.0, -0.4, -0.8], [-0.8, -0.4, 0.0, 0.4, 0.8]])
    R, X, _ = simulate(300, GAMMA, model="pl", scores=scores * 2, seed=4)
    est = PlackettLuceMixture(2, n_init=2, random_state=0, gate_penalty=0.5).fit(R, X=X)
    ed, *_ = EX._compile(est, R, X, None)
    gamma = est.gate_coef_.copy()
    gamma[:, 1:] = est.gate_coef_[:, 1:] * est.gate_scale_
    gamma[:, 0] = est.gate_coef_[:, 0] + est.gate_coef_[:, 1:] @ est.gate_mean_
    B = _sum_zero_basis(5)
    u0 = est.scores_ @ B  # (K, m - 1): the sum-zero log-worths in the basis
    q, _, _ = EX._e_step(est, ed, {"scores": est.scores_}, gamma)
    info, n_g = EX._louis_information(est, ed, q, gamma)

    def objective(phi):  # penalised log-likelihood
        g = np.vstack([np.zeros(3), phi[:n_g].reshape(1, 3)])
        z = phi[n_g:].reshape(2, 4) @ B.T
        return EX._e_step(est, ed, {"scores": z}, g)[1] - 0.25 * np.sum(g[1, 1:] ** 2)

    phi0 = np.concatenate([gamma[1:].ravel(), u0.ravel()])
    h, p = 1e-4, phi0.size
    hess = np.zeros((p, p))
    for a in range(p):
        for b in range(a, p):
            ea, eb = np.eye(p)[a] * h, np.eye(p)[b] * h
            hess[a, b] = hess[b, a] = (
                objective(phi0 + ea + eb) - objective(phi0 + ea - eb)
                - objective(phi0 - ea + eb) + objective(phi0 - ea - eb)
            ) / (4 * h * h)  # fmt: skip
    np.testing.assert_allclose(info, -hess, rtol=2e-4, atol=2e-2)


def test_rows_of_zero_weight_are_labelled_but_not_fitted(mallows_data):
    R, X, _ = mallows_data
    w = np.ones(600)
    w[::7] = 0.0
    a = MallowsMixture(2, n_init=2, random_state=0).fit(R, X=X, sample_weight=w)
    keep = w > 0
    b = MallowsMixture(2, n_init=2, random_state=0).fit(R[np.flatnonzero(keep)], X=X[keep])
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-9)
    assert a.labels_.shape == (600,)
    np.testing.assert_array_equal(a.labels_, a.predict(R, X))


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_squarem_reaches_the_plain_em_optimum(cls, mallows_data):
    R, X, _ = mallows_data
    fast = cls(2, n_init=2, random_state=0, tol=1e-9).fit(R, X=X)
    slow = cls(2, n_init=2, random_state=0, tol=1e-9, accelerate=False).fit(R, X=X)
    assert fast.log_likelihood_ == pytest.approx(slow.log_likelihood_, rel=1e-7)
    np.testing.assert_allclose(fast.gate_coef_, slow.gate_coef_, atol=1e-3)
    assert np.diff(fast.log_likelihood_history_).min() >= -1e-9 * abs(fast.log_likelihood_)


def test_tools_for_plain_mixtures_refuse_a_mixture_of_experts(mallows_fit, mallows_data):
    from rankclust.inference import (
        bootstrap,
        goodness_of_fit,
        mixture_standard_errors,
        sample_like,
    )

    R, _, _ = mallows_data
    for call in (
        lambda: mixture_standard_errors(mallows_fit, R),
        lambda: bootstrap(mallows_fit, R, n_boot=2),
        lambda: sample_like(mallows_fit, R),
        lambda: goodness_of_fit(mallows_fit, R),
    ):
        with pytest.raises(ValueError, match="fitted with covariates"):
            call()


def test_gate_starts_that_disagree_are_said(mallows_data, monkeypatch):
    R, X, _ = mallows_data
    kw = {"n_init": 3, "random_state": 0, "gate_penalty": 0.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = MallowsMixture(2, **kw).fit(R, X=X)  # well-separated: the starts agree
    assert est.gate_n_agreeing_ >= 2
    # every other start judged a different partition: only the kept one reached the fit
    monkeypatch.setattr(EX, "_mismatch", lambda *args: 1.0)
    with pytest.warns(ConvergenceWarning, match=r"reached by 1 of 3 gate starts"):
        est = MallowsMixture(2, **kw).fit(R, X=X)
    assert est.gate_n_agreeing_ == 1
