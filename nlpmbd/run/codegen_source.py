"""The generated C of a chunk, edited before it is compiled (run/codegen.py): a QP that fails
returns like the VM's instead of aborting the chunk, and the big leaf functions go to units of
their own, compiled at -Og in parallel."""

from __future__ import annotations

import re

#: Leaves smaller than this (bytes of C, ~0.3 s at -Og) stay in the main unit: a unit costs
#: ~0.1 s more (its preamble). The 32-link chain has 7 parts, the 8-link one 4.
PART_MIN = 50_000

_SIGNATURE = (
    r"\(const casadi_real\*\* arg, casadi_real\*\* res, casadi_int\* iw, casadi_real\* w, int mem\)"
)
#: A generated function, from its definition to its closing brace.
_FUNCTION = re.compile(rf"^static int (casadi_f\d+)({_SIGNATURE}) \{{\n.*?^\}}\n", re.S | re.M)
#: The end of the preamble (macros, includes, runtime helpers): static data or the first
#: function; a part needs the preamble only.
_PREAMBLE_END = re.compile(
    r"^(static const casadi_\w+ casadi_\w+\[|static int casadi_f\d+\(|CASADI_SYMBOL_EXPORT )", re.M
)
#: What a leaf must not use: another generated function, static data (sparsities, constants).
_NOT_LEAF = re.compile(r"\bcasadi_(f\d+|[sc]\d+|zeros)\b")
_OPTIMIZE_OG = '#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize ("Og")\n#endif\n'


#: How CasADi's generated qrqp ends when the QP was not solved (CasADi 3.6-3.8).
_QP_FAILURE_RETURN = re.compile(
    r"(\} else if \(d\.status == QP_NO_SEARCH_DIR\) \{\s*)return 4;(\s*\} else \{\s*)return -1;"
)


def nonfatal_qp(source: str) -> str:
    """A generated QP that fails returns nonzero, which aborts the whole chunk; the VM instead
    returns the last iterate (error_on_fail = False). Make the C code do the same: the chunk
    checks every step's KKT conditions itself and hands failed steps back to Python. If the
    pattern is not found (another CasADi version), the source is unchanged and a failing chunk
    is evaluated again by the VM (fast_loop.py)."""
    return _QP_FAILURE_RETURN.sub(r"\1return 0;\2return 0;", source)


#: CasADi's generated DAQP call (CasADi 3.7-3.8): the constraint rows' working-set flags (5:
#: an equality, active and immutable; 0: inactive), then DAQP's setup, which factorises the
#: rows flagged active.
_DAQP_SENSE = re.compile(
    r"(    d->daqp\.sense\[p_qp->nx\+i\] = d_qp->lba\[i\]==d_qp->uba\[i\] \? 5 : 0;\n)"
)
_DAQP_SETUP = re.compile(
    r"(  flag = setup_daqp\(&d->daqp,&d->work,&\(d->res\.setup_time\)\);\n)"
    r"(  if \(flag<0\) return 1;\n)"
)
#: A row with lam_a0 > 0 starts in DAQP's working set, active at its upper bound (DAQP's sense
#: bit 1; bit 2, at the lower bound, clear), where its bound is finite.
_WARM_ROW = (
    "    if (d_qp->lam_a0 && d_qp->lam_a0[i] > 0 && d_qp->lba[i] != d_qp->uba[i]"
    " && d_qp->uba[i] < 1e300) d->daqp.sense[p_qp->nx+i] = 1;\n"
)
#: If those rows are dependent (DAQP: EXIT_OVERDETERMINED_INITIAL, -6), DAQP freed its
#: workspace but not its LDP data: free that, and set up again from the equalities alone.
_COLD_AGAIN = (
    "  if (flag == -6 && d_qp->lam_a0) {\n"
    "    free_daqp_ldp(&d->work);\n"
    "    for (i=0;i<p_qp->na;++i)"
    " d->daqp.sense[p_qp->nx+i] = d_qp->lba[i]==d_qp->uba[i] ? 5 : 0;\n"
    "    d->work.settings = (DAQPSettings*) (&p->settings);\n"
    "    flag = setup_daqp(&d->daqp,&d->work,&(d->res.setup_time));\n"
    "  }\n"
)


def warm_daqp(source: str) -> str:
    """CasADi's DAQP ignores the warm start lam_a0; DAQP itself starts from the rows its sense
    flags mark active. Mark them from lam_a0 (step/qp_graph.py passes the active set the
    step before suggests): DAQP, a dual active-set method, then adds and drops a few rows
    instead of building the whole active set from an empty one, each addition a pass over
    every row (add_infeasible: 41 % of the 32-link clearance chain's CPU from cold). The
    optimum is the same QP's; without the patterns (another CasADi) the source is unchanged."""
    if not (_DAQP_SENSE.search(source) and _DAQP_SETUP.search(source)):
        return source
    source = _DAQP_SENSE.sub(lambda m: m.group(1) + _WARM_ROW, source)
    return _DAQP_SETUP.sub(lambda m: m.group(1) + _COLD_AGAIN + m.group(2), source)


def split_source(source: str) -> tuple[str, list[str]]:
    """(main unit, part units): each leaf function of at least PART_MIN bytes goes to a part
    of its own (the preamble under its own symbol prefix, then the function, made external);
    the main unit calls it through a stub and compiles its other functions at -Og."""
    end = _PREAMBLE_END.search(source)
    preamble = source[: end.start()] if end else ""
    main: list[str] = []
    parts: list[str] = []
    pos = 0
    for m in _FUNCTION.finditer(source):
        name, signature, text = m.group(1), m.group(2), m.group(0)
        body = text[text.index(" {\n") :]
        if not preamble or len(text) < PART_MIN or _NOT_LEAF.search(body):
            continue
        prefix = f"nlpmbd_part{len(parts)}_"
        # CasADi names internal symbols CASADI_PREFIX(id): here prefix + id, so that the
        # preamble's helpers, defined again in each part, do not clash at link time
        head = f"#define CASADI_CODEGEN_PREFIX\n#define CODEGEN_PREFIX {prefix}\n"
        parts.append(head + preamble + text.removeprefix("static "))
        target = prefix + name.removeprefix("casadi_")
        stub = f"int {target}{signature};\nstatic int {name}{signature} {{\n"
        main += [source[pos : m.start()], stub, f"  return {target}(arg, res, iw, w, mem);\n}}\n"]
        pos = m.end()
    main.append(source[pos:])
    text = "".join(main)
    first = re.search(r"^static int casadi_f\d+\(", text, re.M)
    if first is None:
        return text, parts
    return text[: first.start()] + _OPTIMIZE_OG + text[first.start() :], parts
