"""The speed targets of issue 5 (docs/benchmarks/index.md), checked by `python -m benchmarks`."""

from nlpmbd.apps.bench_summary import Target

TARGETS = (
    Target(
        "revolute", "nlp variable h", "median_us", "median solve time per step", 1.0, "ms", 1e-3
    ),
    Target("revolute", "nlp variable h", "wall_per_step_us", "wall time per step", 1.0, "ms", 1e-3),
    Target("revolute", "nlp variable h", "failed_steps", "failed steps", 0),
    Target("revolute", "qp compiled", "median_us", "median solve time per step", 20.0, "us"),
    Target("revolute", "qp compiled", "wall_per_sim_s", "wall time per simulated s", 0.02, "s"),
    Target("pendulum", "qp compiled", "median_us", "median solve time per step", 20.0, "us"),
    Target("pendulum", "qp compiled", "wall_per_sim_s", "wall time per simulated s", 0.02, "s"),
)
