"""Altair chart builders: result objects in, Altair charts out (``alt.Chart`` or, for
charts with reference lines and labels, ``alt.LayerChart``); themes are applied when
rendering (:mod:`reportgen.charts.render`).

- :mod:`~reportgen.charts.distributions`: per-system boxplots of item scores and of
  bootstrap means (with intervals), rank distributions.
- :mod:`~reportgen.charts.pairs`: p-value heatmap table, PWPP on the emmeans scale.
- :mod:`~reportgen.charts.graph`: connected graph of non-significant pairs, cliques.
- :mod:`~reportgen.charts.leaderboard`: rank intervals with letters, Bradley-Terry,
  critical-difference diagram.
- :mod:`~reportgen.charts.noise`: p vs |Δ|, |A−B| vs A+B, CI width by runs, power/MDE,
  difficulty histogram, TOPSIS scatter.
- :mod:`~reportgen.charts.overview`: means with intervals of every system on every
  dataset × metric (small multiples), the overview of a report.
- :mod:`~reportgen.charts.release`: forest plot of candidate − baseline by verdict.
- :mod:`~reportgen.charts.render`: themes, the active theme, SVG/PNG rendering.
"""

from reportgen.charts.distributions import (
    bootstrap_mean_chart,
    distribution_chart,
    rank_distribution_chart,
)
from reportgen.charts.graph import clique_chart, connected_graph_chart
from reportgen.charts.leaderboard import (
    bradley_terry_chart,
    critical_difference_chart,
    rank_interval_chart,
)
from reportgen.charts.noise import (
    ci_width_by_runs_chart,
    difference_vs_sum_chart,
    difficulty_histogram_chart,
    power_curve_chart,
    pvalue_vs_difference_chart,
    topsis_scatter,
)
from reportgen.charts.overview import means_overview_chart
from reportgen.charts.pairs import emmeans_p_scale, pvalue_heatmap, pwpp_chart
from reportgen.charts.release import forest_plot
from reportgen.charts.render import (
    load_theme,
    theme_names,
    to_png,
    to_svg,
)

__all__ = [
    "bootstrap_mean_chart",
    "bradley_terry_chart",
    "ci_width_by_runs_chart",
    "clique_chart",
    "connected_graph_chart",
    "critical_difference_chart",
    "difference_vs_sum_chart",
    "difficulty_histogram_chart",
    "distribution_chart",
    "emmeans_p_scale",
    "forest_plot",
    "load_theme",
    "means_overview_chart",
    "power_curve_chart",
    "pvalue_heatmap",
    "pvalue_vs_difference_chart",
    "pwpp_chart",
    "rank_distribution_chart",
    "rank_interval_chart",
    "theme_names",
    "to_png",
    "to_svg",
    "topsis_scatter",
]
