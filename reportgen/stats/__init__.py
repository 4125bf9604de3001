"""Pure statistical computation: numpy arrays in, frozen result objects out.

No I/O, no pandas parsing, no Altair or papermill here (docs/design.md, "Layers").

- :mod:`~reportgen.stats.pairwise`: pairwise comparisons of systems (Table 1 of Ackerman
  et al. (2025), permutation, bootstrap and sign tests), vectorised over all pairs.
- :mod:`~reportgen.stats.multiplicity`: Holm-Šidák, Holm, Bonferroni, Šidák, BH, BY.
- :mod:`~reportgen.stats.intervals`: Wilson, Newcombe, Tango, t and Welch intervals.
- :mod:`~reportgen.stats.means`: per-system intervals (Wilson, Clopper-Pearson, t,
  bootstrap percentile and BCa), vectorised over systems.
- :mod:`~reportgen.stats.runs`: repeated runs and clusters (clustered SE, cluster and
  pooled-runs bootstrap, data vs prediction noise, runs-differ tests, CI width by runs).
- :mod:`~reportgen.stats.corpus`: corpus-level metrics (F1, precision, recall) from
  per-item sufficient statistics; bootstrap and approximate randomization.
- :mod:`~reportgen.stats.power`: power, minimum detectable effect, items needed.
- :mod:`~reportgen.stats.noise`: the noise profile of a benchmark (Wang et al. 2024).
- :mod:`~reportgen.stats.aggregation`: metric aggregation, harmonic-mean p, effect-size
  and unpaired-mean aggregation, sign test over lists, Friedman with Nemenyi.
- :mod:`~reportgen.stats.ranking`: rank distributions, simultaneous rank intervals,
  ordered ranking with cliques, compact letter display, TOPSIS.
- :mod:`~reportgen.stats.leaderboard`: win rates, Bradley-Terry, item analysis.
- :mod:`~reportgen.stats.summary_tests`: tests from published means and intervals.
"""

from reportgen.stats._common import resampling_iv
from reportgen.stats._resampling import DEFAULT_MAX_MEMORY
from reportgen.stats.aggregation import (
    aggregate_effect_sizes,
    aggregate_metrics,
    aggregate_unpaired_means,
    friedman_nemenyi,
    harmonic_mean_pvalue,
    sign_test_wins,
)
from reportgen.stats.corpus import (
    classification_statistics,
    corpus_bootstrap_interval,
    corpus_compare_paired,
    corpus_metric,
)
from reportgen.stats.intervals import (
    newcombe_unpaired_interval,
    t_interval,
    tango_paired_interval,
    welch_interval,
    wilson_interval,
)
from reportgen.stats.leaderboard import bradley_terry, item_analysis, win_rates
from reportgen.stats.means import bootstrap_means, clopper_pearson_interval, mean_intervals
from reportgen.stats.multiplicity import CORRECTIONS, adjust_pvalues
from reportgen.stats.noise import noise_profile
from reportgen.stats.pairwise import (
    EFFECT_THRESHOLDS,
    PairwiseResult,
    compare_paired,
    compare_unpaired,
    comparison_pairs,
    effect_magnitude,
)
from reportgen.stats.power import (
    PowerDesign,
    mde_for_sample,
    minimum_detectable_effect,
    power_at,
    required_n,
    simulate_paired_binary_power,
)
from reportgen.stats.ranking import (
    compact_letter_display,
    ordered_ranking,
    rank_agreement,
    rank_distributions,
    simultaneous_rank_intervals,
    topsis,
)
from reportgen.stats.runs import (
    ci_width_by_runs,
    cluster_bootstrap_interval,
    clustered_mean_interval,
    pooled_runs_bootstrap,
    runs_differ_test,
    variance_components,
    variance_components_paired,
)

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "resampling_iv",
    "CORRECTIONS",
    "aggregate_effect_sizes",
    "aggregate_metrics",
    "aggregate_unpaired_means",
    "bootstrap_means",
    "bradley_terry",
    "compact_letter_display",
    "friedman_nemenyi",
    "harmonic_mean_pvalue",
    "item_analysis",
    "ordered_ranking",
    "rank_agreement",
    "rank_distributions",
    "sign_test_wins",
    "simultaneous_rank_intervals",
    "topsis",
    "win_rates",
    "ci_width_by_runs",
    "classification_statistics",
    "clopper_pearson_interval",
    "cluster_bootstrap_interval",
    "clustered_mean_interval",
    "corpus_bootstrap_interval",
    "corpus_compare_paired",
    "corpus_metric",
    "mde_for_sample",
    "mean_intervals",
    "minimum_detectable_effect",
    "noise_profile",
    "pooled_runs_bootstrap",
    "power_at",
    "PowerDesign",
    "required_n",
    "runs_differ_test",
    "simulate_paired_binary_power",
    "variance_components",
    "variance_components_paired",
    "EFFECT_THRESHOLDS",
    "PairwiseResult",
    "adjust_pvalues",
    "compare_paired",
    "compare_unpaired",
    "comparison_pairs",
    "effect_magnitude",
    "newcombe_unpaired_interval",
    "t_interval",
    "tango_paired_interval",
    "welch_interval",
    "wilson_interval",
]
