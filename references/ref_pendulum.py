"""The minimal-coordinate reference of a body swinging about a fixed Z axis: I_O theta'' =
-m g L cos(theta), released at rest with its centre of mass along +X (theta from +X towards +Y),
gravity -Y, solved by scipy to 1e-12."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.integrate import solve_ivp


def swing(t_end: float, m: float, L: float, I_O: float, g: float = 9.81) -> Callable:
    """theta(t) on [0, t_end]; L is the pin's distance from the centre of mass, I_O the moment
    of inertia about the pin."""
    sol = solve_ivp(
        lambda t, y: [y[1], -m * g * L * np.cos(y[0]) / I_O],
        (0.0, t_end),
        [0.0, 0.0],
        rtol=1e-12,
        atol=1e-12,
        dense_output=True,
    )
    return lambda t: sol.sol(t)[0]
