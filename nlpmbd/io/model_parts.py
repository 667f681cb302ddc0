"""[[joints]] and [[loads]] of a model file (io/model_file.py), built from their constructors.

An entry's `type` names the class: joints through the entry point group "nlpmbd.joints"
({type name: Joint subclass}; the built-in ones in nlpmbd_joints/registry.py), loads from LOADS.
Every other key is a keyword of the class's constructor, checked against its signature: an
unknown key is an error listing the allowed ones, a missing required one too. Values go to the
constructor as they are (its own checks apply, their messages moved to the key path), except
for parameters that are, by their annotation:

- a body (Body, RigidBody): a body's name, or "GROUND" for the fixed frame; a flexible body
  (FlexibleBody, a PointLoad's `body`): a [[flexible_bodies]] name;
- a node (Node, the `node` of NodeContact and NodePin): a table naming a flexible body's node
  (io/model_flexible.py); `nodes` instead of `node` makes one joint per node;
- a contact law (ContactLaw, the key `contact`): a table, ``{ law = "hard", mu = 0.2,
  restitution = 0.4, mu_static = 0.3 }`` or ``{ law = "compliant", stiffness = 1e9,
  exponent = 1.5, restitution = 0.8, damping = "hunt-crossley", mu = 0.1 }`` (the keywords of
  HardContact and CompliantContact, model/contact.py and model/compliant.py);
- a time function (TimeFunction, e.g. a driving joint's `motion`): an expression of t
  (io/expressions.py), e.g. "2 * pi * t";
- a load's value (Force, Torque): three entries, each a number or an expression of t and the
  body's state (x y z vx vy vz wx wy wz); all numbers give a constant load; a PointLoad's: two
  (fx, fy), of t and the point's state (x y z vx vy vz).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from ..errors import InputError
from ..model.bodies import GROUND, Body
from ..model.compliant import CompliantContact
from ..model.contact import ContactLaw, HardContact, SpringDamperContact
from ..model.flexible import FlexibleBody, Node
from ..model.flexible_loads import PointLoad
from ..model.forces import Force, Torque
from ..model.joint import Joint
from ..model.springs import RotationalSpringDamper, SpringDamper
from ..validation import short_repr
from .expressions import BODY_STATE, TIME, Expression, parse_expression
from .model_flexible import flexible_body, node, nodes
from .model_schema import GROUND_NAMES, Where, check_keys, located, table

#: [[loads]] type -> class.
LOADS: dict[str, type] = {
    "force": Force,
    "torque": Torque,
    "spring_damper": SpringDamper,
    "rotational_spring_damper": RotationalSpringDamper,
    "point_load": PointLoad,
}
#: contact law -> class.
CONTACT_LAWS: dict[str, type[ContactLaw]] = {
    "hard": HardContact,
    "compliant": CompliantContact,
    "spring_damper": SpringDamperContact,
}
#: The entry point group of joint classes.
JOINT_GROUP = "nlpmbd.joints"

#: Body state variables of a load's expression -> (BodyState attribute, index).
_STATE: dict[str, tuple[str, int]] = {
    **{n: ("position", k) for k, n in enumerate(("x", "y", "z"))},
    **{n: ("velocity", k) for k, n in enumerate(("vx", "vy", "vz"))},
    **{n: ("angular_velocity", k) for k, n in enumerate(("wx", "wy", "wz"))},
}


def joint_classes() -> dict[str, type]:
    """{type name: joint class} of every installed package (entry point group nlpmbd.joints)."""
    found: dict[str, type] = {}
    for ep in metadata.entry_points(group=JOINT_GROUP):
        for name, cls in dict(ep.load()).items():
            if isinstance(cls, type) and issubclass(cls, Joint):
                found.setdefault(name, cls)
    return dict(sorted(found.items()))


def build_entry(
    entry: dict[str, Any], where: Where, classes: Mapping[str, type], bodies: dict[str, Any]
) -> Any:
    """The object an entry describes: `type` picks the class, the other keys are its keywords."""
    return _build(entry, where, classes, bodies)[0]


def build_entries(
    entry: dict[str, Any], where: Where, classes: Mapping[str, type], bodies: dict[str, Any]
) -> list[Any]:
    """The objects an entry describes: one, or one per node of its `nodes`."""
    return _build(entry, where, classes, bodies)


def _build(
    entry: dict[str, Any], where: Where, classes: Mapping[str, type], bodies: dict[str, Any]
) -> list[Any]:
    if "type" not in entry:
        raise where.key("type").error(f"missing (one of {', '.join(classes) or 'none'})")
    kind = entry["type"]
    if not isinstance(kind, str) or kind not in classes:
        raise where.key("type").error(
            f"unknown type {short_repr(kind)}; known types: {', '.join(classes) or 'none'}"
        )
    keywords = {k: v for k, v in entry.items() if k != "type"}
    cls = classes[kind]
    if "nodes" not in keywords or "node" not in _parameters(cls):
        return [construct(cls, keywords, where, bodies)]
    if "node" in keywords:
        raise where.key("nodes").error("give one of node (one joint) or nodes (one per node)")
    if not isinstance(keywords.get("name"), str):
        raise where.key("name").error(
            f"missing or not a string: with nodes it begins each joint's name, got "
            f"{short_repr(keywords.get('name'))}"
        )
    out = []
    for one in nodes(keywords.pop("nodes"), where.key("nodes"), bodies):
        named = {**keywords, "name": f"{keywords['name']}{one.index}", "node": one}
        out.append(construct(cls, named, where, bodies))
    return out


def construct(cls: type, keywords: dict[str, Any], where: Where, bodies: dict[str, Any]) -> Any:
    """cls(**keywords) with the keys checked against its signature and converted by kind."""
    params = _parameters(cls)
    required = [n for n, p in params.items() if p.default is inspect.Parameter.empty]
    check_keys(keywords, where, list(params), required)
    kwargs = {
        key: _convert(params[key], value, where.key(key), bodies) for key, value in keywords.items()
    }
    default = params["name"].default if "name" in params else None
    owner = keywords.get("name", default)  # the classes' messages begin "<name>.<key>"
    try:
        return cls(**kwargs)
    except InputError as err:
        owners = [o for o in (owner, "contact") if isinstance(o, str)]
        raise located(err, where, owners, keywords) from None
    except (TypeError, ValueError, ArithmeticError) as err:  # a check the class does not make
        raise where.error(f"{cls.__name__} rejected it: {type(err).__name__}: {err}") from None


def keys_of(cls: type) -> list[str]:
    """The model-file keys of a joint type or contact law: its constructor's keywords."""
    return [n for n in _parameters(cls) if n != "name"]


def _parameters(cls: type) -> dict[str, inspect.Parameter]:
    plain = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    signature = inspect.signature(cls)
    return {n: p for n, p in signature.parameters.items() if p.kind in plain}


def parameter_kind(param: inspect.Parameter) -> str:
    """How a model file gives a constructor parameter: contact, vector_function,
    planar_function, time_function, node, flexible_body, body or value."""
    text = str(param.annotation)
    if "ContactLaw" in text or param.name == "contact":
        return "contact"
    if "VectorFunction" in text:
        return "vector_function"
    if "BodyState" in text:
        return "planar_function"
    if "TimeFunction" in text or "Callable" in text:
        return "time_function"
    if text == "Node":
        return "node"
    if "FlexibleBody" in text:
        return "flexible_body"
    if "Body" in text or param.name in ("parent", "child", "body"):
        return "body"
    return "value"


def _convert(param: inspect.Parameter, value: Any, where: Where, bodies: dict[str, Any]) -> Any:
    kind = parameter_kind(param)
    if isinstance(value, Node):  # a node of `nodes`, looked up already
        return value
    if kind == "body":
        return body_named(value, where, bodies)
    if kind == "node":
        return node(value, where, bodies)
    if kind == "flexible_body":
        return flexible_body(value, where, bodies)
    if kind == "planar_function":
        return vector_function(value, where, 2)
    if kind == "contact":
        return contact_law(value, where)
    if kind == "time_function":
        return time_function(value, where)
    if kind == "vector_function":
        return vector_function(value, where)
    return value


def body_named(value: object, where: Where, bodies: dict[str, Any]) -> Body:
    if isinstance(value, str) and value in GROUND_NAMES:
        return GROUND
    rigid = [n for n, b in bodies.items() if not isinstance(b, FlexibleBody)]
    if isinstance(value, str) and value in bodies and value not in rigid:
        raise where.error(
            f"{value!r} is a flexible body: its nodes are joined by node_contact and node_pin "
            "(node = { body = ..., index = ... }); bodies: " + ", ".join([*rigid, "GROUND"])
        )
    if not isinstance(value, str) or value not in bodies:
        known = ", ".join([*rigid, "GROUND"])
        raise where.error(f"unknown body {short_repr(value)}; bodies: {known}")
    body: Body = bodies[value]
    return body


def contact_law(value: object, where: Where) -> ContactLaw:
    entries = table(value, where)
    law = entries.pop("law", "hard")
    if not isinstance(law, str) or law not in CONTACT_LAWS:
        raise where.key("law").error(
            f"unknown contact law {short_repr(law)}; laws: {', '.join(CONTACT_LAWS)}"
        )
    if isinstance(entries.get("friction_speeds"), list):
        entries["friction_speeds"] = tuple(entries["friction_speeds"])
    law_object: ContactLaw = construct(CONTACT_LAWS[law], entries, where, {})
    return law_object


def time_function(value: object, where: Where) -> Callable[[Any], Any]:
    """A function f(t) from an expression of t (or a number: a constant)."""
    if isinstance(value, bool):
        raise where.error(f'must be an expression of t such as "2 * t", got {value!r}')
    text = repr(float(value)) if isinstance(value, (int, float)) else value
    if not isinstance(text, str):
        raise where.error(f'must be an expression of t such as "2 * t", got {short_repr(value)}')
    expression = parse_expression(text, str(where), TIME)
    return lambda t: expression({"t": t})


def vector_function(value: object, where: Where, size: int = 3) -> Any:
    """`size` numbers (a constant vector) or a function f(t, state) of `size` expressions."""
    if not isinstance(value, list) or not any(isinstance(v, str) for v in value):
        return value  # numbers (or nonsense): the class checks them
    if len(value) != size:
        raise where.error(f"must have {size} entries, got {len(value)}")
    parts: list[Any] = []
    for index, entry in enumerate(value):
        if isinstance(entry, str):
            parts.append(parse_expression(entry, str(where.item(index)), BODY_STATE))
        elif _is_number(entry):
            parts.append(entry)
        else:
            raise where.item(index).error(f"must be a number or an expression, got {entry!r}")
    used = {n for p in parts if isinstance(p, Expression) for n in p.variables} - {"t"}

    def f(t: Any, state: Any) -> list[Any]:
        env = {"t": t, **{n: getattr(state, _STATE[n][0])[_STATE[n][1]] for n in used}}
        return [p(env) if isinstance(p, Expression) else p for p in parts]

    return f


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
