"""A small, safe expression language for the time functions of model files (io/model_file.py).

An expression is one line of ordinary arithmetic, e.g. ``"0.2 * sin(2 * pi * t)"``:

- numbers (integers are read as floats), the names ``pi`` and ``e``, and the variables a field
  allows: ``t`` (time, s) everywhere; for applied loads also the body's state, ``x y z``
  (centre-of-mass position, global, m), ``vx vy vz`` (its velocity, global, m/s) and
  ``wx wy wz`` (angular velocity, body axes, rad/s);
- ``+ - * / **``, unary minus and plus, parentheses;
- calls of the functions in FUNCTIONS (sin, cos, tan, exp, log, sqrt, abs, min, max, tanh, ...),
  which are CasADi's, so an expression works on the CasADi symbols the engine traces it with.

It is parsed with Python's `ast` and checked node by node: anything else (attribute access,
indexing, other names, keywords, comparisons, lambdas, strings ...) is an InputError naming
where the expression came from. Nothing is ever passed to eval or exec; the checked tree is
turned into nested closures. The operations run in the order written, on Python floats and
CasADi symbols exactly as a hand-written ``lambda t: 0.2 * ca.sin(2 * ca.pi * t)`` would, so
the two give bit-identical results.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

import casadi as ca

from ..errors import InputError
from ..validation import short_repr

#: Longest expression accepted (characters), and deepest nesting of its syntax tree.
MAX_LENGTH = 2000
MAX_DEPTH = 60
#: Named constants.
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}
#: Function name -> (CasADi function, smallest and largest number of arguments).
FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = {
    "sin": (ca.sin, 1, 1),
    "cos": (ca.cos, 1, 1),
    "tan": (ca.tan, 1, 1),
    "asin": (ca.asin, 1, 1),
    "acos": (ca.acos, 1, 1),
    "atan": (ca.atan, 1, 1),
    "atan2": (ca.atan2, 2, 2),
    "sinh": (ca.sinh, 1, 1),
    "cosh": (ca.cosh, 1, 1),
    "tanh": (ca.tanh, 1, 1),
    "exp": (ca.exp, 1, 1),
    "log": (ca.log, 1, 1),
    "sqrt": (ca.sqrt, 1, 1),
    "abs": (ca.fabs, 1, 1),
    "min": (ca.fmin, 2, 8),
    "max": (ca.fmax, 2, 8),
}
#: The variables of a time function, and of an applied load's value.
TIME = ("t",)
BODY_STATE = ("t", "x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz")

_BINARY: dict[type, tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Add: ("+", lambda a, b: a + b),
    ast.Sub: ("-", lambda a, b: a - b),
    ast.Mult: ("*", lambda a, b: a * b),
    ast.Div: ("/", lambda a, b: a / b),
    ast.Pow: ("**", lambda a, b: a**b),
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a}
_NAMES_OF = {
    ast.Attribute: "attribute access",
    ast.Subscript: "indexing",
    ast.Compare: "comparison",
    ast.BoolOp: "'and'/'or'",
    ast.IfExp: "'if ... else'",
    ast.Lambda: "lambda",
    ast.NamedExpr: "':='",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.Dict: "a dict",
    ast.JoinedStr: "an f-string",
}

Node = Callable[[Mapping[str, Any]], Any]


class Expression:
    """A checked expression: call it with {variable: value} (floats or CasADi symbols)."""

    def __init__(self, text: str, node: Node, variables: frozenset[str]) -> None:
        self.text = text
        self.variables = variables  # the variables it uses
        self._node = node

    def __call__(self, values: Mapping[str, Any]) -> Any:
        return self._node(values)

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def parse_expression(text: object, where: str, variables: Collection[str] = TIME) -> Expression:
    """`text` checked and compiled; InputError "<where>: ..." if it is not a valid expression
    of `variables`. A constant expression must give a finite number."""
    if not isinstance(text, str):
        raise InputError(f"{where}: an expression must be a string, got {short_repr(text)}")
    if not text.strip() or len(text) > MAX_LENGTH:
        raise InputError(f"{where}: an expression must have 1 to {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as err:
        raise InputError(f"{where}: invalid expression {short_repr(text)}: {err.msg}") from None
    except (ValueError, MemoryError, RecursionError):  # e.g. a NUL byte, absurd nesting
        raise InputError(f"{where}: invalid expression {short_repr(text)}") from None
    used: set[str] = set()
    compiler = _Compiler(f"{where}: expression {short_repr(text)}", frozenset(variables), used)
    node = compiler.compile(tree.body, 0)
    if not used:
        _constant(node, compiler.where)
    return Expression(text, node, frozenset(used))


def _constant(node: Node, where: str) -> float:
    value = float(node({}))  # already evaluated: constant parts are folded
    if not math.isfinite(value):
        raise InputError(f"{where} is not finite ({value})")
    return value


class _Compiler:
    """Checks a syntax tree node by node and turns it into closures."""

    def __init__(self, where: str, variables: frozenset[str], used: set[str]) -> None:
        self.where, self.variables, self.used = where, variables, used

    def fail(self, reason: str) -> InputError:
        return InputError(f"{self.where}: {reason}")

    def compile(self, node: ast.AST, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, ast.Constant):
            return self._number(node.value)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            op = _BINARY[type(node.op)][1]
            left, right = self.compile(node.left, depth + 1), self.compile(node.right, depth + 1)
            return self._fold(lambda v: op(left(v), right(v)), node, depth)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            unary, operand = _UNARY[type(node.op)], self.compile(node.operand, depth + 1)
            return self._fold(lambda v: unary(operand(v)), node, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            symbol = ast.unparse(node).replace(" ", "")
            raise self.fail(f"operator in {short_repr(symbol)} is not allowed; use + - * / **")
        what = _NAMES_OF.get(type(node), type(node).__name__)
        raise self.fail(f"{what} is not allowed ({short_repr(ast.unparse(node))})")

    def _fold(self, node: Node, tree: ast.AST, depth: int) -> Node:
        """Constant parts are evaluated once, now (as Python would evaluate them later)."""
        if any(isinstance(n, ast.Name) and n.id in self.variables for n in ast.walk(tree)):
            return node
        part = short_repr(ast.unparse(tree))
        try:
            value = node({})
        except (ArithmeticError, ValueError, TypeError) as err:
            raise self.fail(f"{part} cannot be evaluated ({type(err).__name__}: {err})") from None
        if isinstance(value, complex):  # Python's power of a negative number: no real value
            raise self.fail(
                f"{part} has no real value (a negative number to a non-integer power); "
                "expressions compute with real numbers only"
            )
        if not math.isfinite(value):
            raise self.fail(f"{part} is not finite ({value})")
        return lambda v: value

    def _number(self, value: object) -> Node:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"only numbers are allowed as constants, got {short_repr(value)}")
        try:
            number = float(value)
        except OverflowError:
            raise self.fail("a number is beyond the float range") from None
        return lambda v: number

    def _name(self, name: str) -> Node:
        if name in self.variables:
            self.used.add(name)
            return lambda v: v[name]
        if name in CONSTANTS:
            number = CONSTANTS[name]
            return lambda v: number
        if name in FUNCTIONS:
            raise self.fail(f"function {name!r} must be called, e.g. {name}(t)")
        allowed = ", ".join([*sorted(self.variables), *CONSTANTS])
        raise self.fail(f"name {name!r} is not allowed; allowed names: {allowed}")

    def _call(self, node: ast.Call, depth: int) -> Node:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            called = ast.unparse(node.func)
            raise self.fail(
                f"call of {short_repr(called)} is not allowed; functions: {', '.join(FUNCTIONS)}"
            )
        name = node.func.id
        function, least, most = FUNCTIONS[name]
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(f"{name}() takes plain positional arguments only")
        if not least <= len(node.args) <= most:
            count = str(least) if least == most else f"{least} to {most}"
            raise self.fail(f"{name}() takes {count} arguments, got {len(node.args)}")
        args = [self.compile(a, depth + 1) for a in node.args]
        if len(args) == 1:
            (only,) = args
            return self._fold(lambda v: function(only(v)), node, depth)

        def folded(v: Mapping[str, Any]) -> Any:  # min(a, b, c) = fmin(fmin(a, b), c)
            out = args[0](v)
            for arg in args[1:]:
                out = function(out, arg(v))
            return out

        return self._fold(folded, node, depth)
