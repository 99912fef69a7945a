"""Sparse recovery: CoSaMP (Needell & Tropp 2009), vectorised over many signals.

Compressed sensing for multi-label prediction (Hsu et al. 2009; Algorithm 4 of Tai & Lin,
``../shared/papers/004_*.txt``) decodes each instance by recovering a sparse label vector from
its predicted code. The PLST paper (Section 4) decodes with CoSaMP, "the best-performing
reconstruction algorithm" of Hsu et al. Neither scikit-learn (which has orthogonal matching
pursuit, :func:`sklearn.linear_model.orthogonal_mp`) nor scipy implements CoSaMP, so it is
written here; every least-squares solve is :func:`scipy.linalg.lstsq`.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as la

__all__ = ["cosamp"]

# upper bound on the float64 elements of one batch of restricted dictionaries (64 MB)
_BATCH_ELEMENTS = 8_000_000


def _check_positive_int(value, name: str) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1:
        return int(value)
    raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")


def cosamp(
    dictionary,
    measurements,
    sparsity: int,
    *,
    max_iter: int = 30,
    tol: float = 1e-10,
    return_n_iter: bool = False,
):
    """Recover s-sparse signals ``a`` with ``dictionary @ a ~ u`` by CoSaMP.

    CoSaMP (Needell & Tropp, "CoSaMP: Iterative signal recovery from incomplete and
    inaccurate samples", Appl. Comput. Harmon. Anal. 26(3), 2009, Algorithm 1), for each
    measurement vector ``u`` from ``a = 0``, ``v = u``:

    1. form the proxy ``y = Phi~^T v`` (``Phi~``: the dictionary with unit-norm columns);
    2. identify ``Omega``, the indices of the ``2s`` largest ``|y|``;
    3. merge supports ``T = Omega | supp(a)``;
    4. least squares on the merged support, ``b_T = pinv(Phi_T) u``, ``b = 0`` off T;
    5. prune: ``a`` keeps the ``s`` largest ``|b|``;
    6. update the residual ``v = u - Phi a``;

    and repeat until the halting rule holds (see ``tol`` and ``max_iter``). The proxy uses
    unit-norm columns, as the PLST authors' MATLAB decoder did, so that the identification does
    not favour long columns; the least squares use the dictionary as given.

    Halting rule, per signal: Needell & Tropp's residual criterion ``||v|| <= tol * ||u||``;
    an iteration cap; and two rules of ours. When an iteration merges the same support T as the
    one before it stops, since ``a`` depends on T alone (step 4 solves against ``u``), so it
    and every later iteration would return the same ``a``. When an iterate after the first
    does not lower ``||v||`` it is discarded and the signal stops with the previous one: on
    noisy measurements (a regressor's predictions) CoSaMP can cycle at the noise floor, and
    this keeps the residual monotone and the run short. (The PLST authors' decoder ran
    exactly s iterations; on the paper's yeast and emotions settings, where ``2s >= L``, the
    first iterate is already a fixed point, so the rules agree.)

    Parameters
    ----------
    dictionary : array-like of shape (n_measurements, n_atoms)
        ``Phi`` (M x L), e.g. the measurement matrix of compressed sensing.
    measurements : array-like of shape (n_signals, n_measurements) or (n_measurements,)
        One measurement vector ``u`` per row.
    sparsity : int
        s >= 1, the number of nonzeros kept. ``s >= L`` keeps every atom; ``2s`` is capped at
        L. s may exceed M: the least squares on the merged support are then underdetermined
        and give the minimum-norm solution, as the MATLAB ``pinv`` of the PLST authors did
        (the paper uses s = 11 at M = 4 on yeast).
    max_iter : int, default=30
        Iteration cap of the halting rule.
    tol : float, default=1e-10
        The residual criterion, relative: a signal halts once ``||v|| <= tol * ||u||`` (a zero
        measurement vector halts before the first iteration with ``a = 0``).
    return_n_iter : bool, default=False
        Also return the number of iterations of each signal.

    Returns
    -------
    coefs : ndarray of shape (n_signals, n_atoms), or (n_atoms,) for 1-D measurements
        The s-sparse (at most) recovered signals.
    n_iter : ndarray of int, shape (n_signals,) or int
        Only if ``return_n_iter``: the iterations each signal started, including the one
        that found a repeated support or a larger residual.

    Notes
    -----
    Signals are processed together: one batched call of :func:`scipy.linalg.lstsq` per
    iteration for all still running signals, in batches that bound memory. Its ``gelsy``
    driver (a complete orthogonal factorisation) gives the minimum-norm solution, also on
    rank-deficient supports, several times faster than an SVD; the rank cutoff is numpy's
    ``pinv`` default, so coinciding columns count once. Ties in steps 2 and 5 go to the lower
    column index (a stable sort), like the MATLAB ``sortrows`` of the authors' decoder; with
    sub-sampled Hadamard dictionaries whose columns coincide, which of two identical atoms is
    chosen can still depend on rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.sparse_recovery import cosamp
    >>> dictionary = np.random.default_rng(0).normal(size=(12, 20))
    >>> signal = np.zeros(20)
    >>> signal[[3, 11]] = [1.0, -2.0]
    >>> coefs = cosamp(dictionary, dictionary @ signal, sparsity=2)
    >>> np.flatnonzero(coefs).tolist(), bool(np.allclose(coefs, signal))
    ([3, 11], True)
    """
    Phi = np.asarray(dictionary, dtype=np.float64)
    if Phi.ndim != 2 or 0 in Phi.shape:
        raise ValueError(
            f"dictionary must be a non-empty 2-D array (n_measurements, n_atoms); got shape "
            f"{Phi.shape}."
        )
    U = np.asarray(measurements, dtype=np.float64)
    one_signal = U.ndim == 1
    U = U.reshape(1, -1) if one_signal else U
    if U.ndim != 2 or U.shape[1] != Phi.shape[0]:
        raise ValueError(
            f"measurements must have shape (n_signals, {Phi.shape[0]}) to match a dictionary "
            f"with {Phi.shape[0]} rows; got shape {np.shape(measurements)}."
        )
    if not (np.all(np.isfinite(Phi)) and np.all(np.isfinite(U))):
        raise ValueError("dictionary and measurements must not contain NaN or infinite values.")
    sparsity = _check_positive_int(sparsity, "sparsity")
    max_iter = _check_positive_int(max_iter, "max_iter")
    if not (isinstance(tol, numbers.Real) and tol >= 0):
        raise ValueError(f"tol must be a real number >= 0; got {tol!r}.")

    n_signals, n_atoms = U.shape[0], Phi.shape[1]
    coefs = np.zeros((n_signals, n_atoms))
    n_iter = np.zeros(n_signals, dtype=int)
    keep = min(sparsity, n_atoms)
    if n_signals:
        norms = np.linalg.norm(Phi, axis=0)
        unit = Phi / np.where(norms > 0, norms, 1.0)
        merged = min(n_atoms, 2 * keep) + keep
        batch = max(1, _BATCH_ELEMENTS // (merged * Phi.shape[0]))
        for start in range(0, n_signals, batch):
            rows = slice(start, start + batch)
            coefs[rows], n_iter[rows] = _cosamp_batch(
                Phi, unit, U[rows], keep, max_iter, float(tol)
            )
    if one_signal:
        coefs, n_iter = coefs[0], int(n_iter[0])
    return (coefs, n_iter) if return_n_iter else coefs


def _largest(magnitudes: np.ndarray, count: int) -> np.ndarray:
    """Column indices of the ``count`` largest entries per row, ties to the lower index."""
    return np.argsort(-magnitudes, axis=1, kind="stable")[:, :count]


def _cosamp_batch(Phi, unit, U, keep, max_iter, tol):
    n_signals, n_atoms = U.shape[0], Phi.shape[1]
    n_identify = min(n_atoms, 2 * keep)
    coefs = np.zeros((n_signals, n_atoms))
    n_iter = np.zeros(n_signals, dtype=int)
    # support of the current estimate, -1 = empty slot (a = 0 before the first iteration)
    support = np.full((n_signals, keep), -1)
    residual = U.copy()
    thresholds = tol * np.linalg.norm(U, axis=1)
    running = np.flatnonzero(np.linalg.norm(U, axis=1) > thresholds)
    # the first iterate is always taken; later ones only when they lower the residual
    residual_norms = np.full(n_signals, np.inf)
    # numpy's pinv rank cutoff (max(m, n) * eps, relative): coinciding columns count once
    rank_tol = max(Phi.shape[0], n_identify + keep) * np.finfo(np.float64).eps
    merged_before = np.zeros((n_signals, n_atoms), dtype=bool)
    for _ in range(max_iter):
        if running.size == 0:
            break
        n_iter[running] += 1
        # 1-2. proxy and the 2s strongest atoms
        omega = _largest(np.abs(residual[running] @ unit), n_identify)
        # 3. merge with the current support; atoms already in omega become empty slots
        previous = support[running]
        repeated = (previous[:, :, None] == omega[:, None, :]).any(axis=2)
        merged = np.concatenate([omega, np.where(repeated, -1, previous)], axis=1)
        valid = merged >= 0
        local = np.arange(running.size)[:, None]
        in_merged = np.zeros((running.size, n_atoms), dtype=bool)
        in_merged[local, np.where(valid, merged, omega[:, :1])] = True
        # a is a function of the merged support alone (step 4 solves against u, not v), so
        # the same merged support as last time gives the same a: a fixed point
        repeats = np.all(in_merged == merged_before[running], axis=1)
        merged_before[running] = in_merged
        running, merged, valid = running[~repeats], merged[~repeats], valid[~repeats]
        if running.size == 0:
            break
        # 4. least squares on the merged support; empty slots are zero columns, to which the
        # minimum-norm solution gives a zero coefficient. LAPACK's gelsy (complete orthogonal
        # factorisation) gives that solution on rank-deficient supports too (coinciding
        # Hadamard columns) and is several times faster than an SVD.
        restricted = Phi.T[np.where(valid, merged, 0)] * valid[:, :, None]  # (n, 3s, M)
        estimate = la.lstsq(
            restricted.transpose(0, 2, 1),
            U[running][:, :, None],
            cond=rank_tol,
            lapack_driver="gelsy",
        )[0][:, :, 0]
        # 5. prune to the s largest (empty slots never win)
        chosen = _largest(np.where(valid, np.abs(estimate), -1.0), keep)
        local = np.arange(running.size)[:, None]
        new_support = merged[local, chosen]
        new_coefs = np.zeros((running.size, n_atoms))
        new_coefs[local, new_support] = estimate[local, chosen]
        # 6. residual, then the halting rule: stop at a small residual, or keep the previous
        # estimate when the residual did not decrease (at the noise floor CoSaMP can cycle)
        new_residual = U[running] - new_coefs @ Phi.T
        new_norms = np.linalg.norm(new_residual, axis=1)
        improved = new_norms < residual_norms[running]
        updated = running[improved]
        coefs[updated] = new_coefs[improved]
        support[updated] = new_support[improved]
        residual[updated] = new_residual[improved]
        residual_norms[updated] = new_norms[improved]
        running = updated[new_norms[improved] > thresholds[updated]]
    return coefs, n_iter
