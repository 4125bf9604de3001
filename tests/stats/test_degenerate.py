def test_unpaired_bootstrap_t_against_explicit_loop():
    # a skewed unpaired unit: p is the larger of Welch's (scipy ttest_ind) and the
    # two-sample studentized bootstrap's (an explicit loop), the interval their hull
    rng = np.random.default_rng(21)
    a, b = rng.lognormal(0.0, 1.5, 60), rng.normal(np.exp(1.125), 1.0, 80)
    r = compare_unpaired([a, b], n_resamples=20_000, rng=2)
    assert r.skewed[0] and "studentized bootstrap" in r.test
    loop = np.random.default_rng(3)
    t_star = np.empty(20_000)
    se = np.sqrt(a.var(ddof=1) / 60 + b.var(ddof=1) / 80)
    for k in range(20_000):
        x, y = a[loop.integers(0, 60, 60)], b[loop.integers(0, 80, 80)]
        s = np.sqrt(x.var(ddof=1) / 60 + y.var(ddof=1) / 80)
        t_star[k] = ((x.mean() - y.mean()) - (a.mean() - b.mean())) / s
    t = (a.mean() - b.mean()) / se
    boot = 2 * min(np.mean(t_star >= t), np.mean(t_star <= t))
    welch = stats.ttest_ind(a, b, equal_var=False)
    ref = max(boot, welch.pvalue)
    assert r.p_value[0] == pytest.approx(ref, abs=4 * np.sqrt(ref * (1 - ref) / 20_000) + 2e-3)
    q = np.quantile(t_star, [0.025, 0.975])
    ci = welch.confidence_interval()
    d = a.mean() - b.mean()
    assert r.ci_low[0] == pytest.approx(min(ci.low, d - se * q[1]), abs=0.05 * se * abs(q[1]))
    assert r.ci_high[0] == pytest.approx(max(ci.high, d - se * q[0]), abs=0.05 * se * abs(q[0]))
