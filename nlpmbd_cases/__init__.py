"""Case studies; REGISTRY is what the CLI lists (through the "nlpmbd.cases" entry point).

A case module imports the engine (System, bodies, joints, CasADi) inside its builder, so that
`nlpmbd list` reads the declarations without loading it (tests/test_fast_start.py)."""

from nlpmbd.model.case import Case

from . import (
    andrews,
    bead_column,
    bouncing_ball,
    box_drop,
    bricard,
    chain,
    crank_rocker,
    cylindrical,
    four_bar,
    four_bar_clearance,
    free_body,
    gear_backlash,
    impacting_stick,
    painleve,
    pendulum,
    prismatic,
    revolute,
    rocking_block,
    slider_crank,
    slider_crank_driven,
    slider_crank_moment,
    spatial_slider_crank,
    stick_slip,
    woodpecker,
)

REGISTRY: dict[str, Case] = {
    c.name: c
    for c in (
        pendulum.CASE,
        revolute.CASE,
        cylindrical.CASE,
        prismatic.CASE,
        free_body.CASE,
        box_drop.CASE,
        slider_crank.CASE,
        slider_crank_driven.CASE,
        crank_rocker.CASE,
        stick_slip.CASE,
        slider_crank_moment.CASE,
        spatial_slider_crank.CASE,
        four_bar.CASE,
        chain.CASE,
        bouncing_ball.CASE,
        bead_column.CASE,
        impacting_stick.CASE,
        rocking_block.CASE,
        painleve.CASE,
        bricard.CASE,
        andrews.CASE,
        woodpecker.CASE,
        four_bar_clearance.CASE,
        gear_backlash.CASE,
    )
}

__all__ = ["REGISTRY"]
