"""The commented model file `nlpmbd new` writes (apps/cli_new.py): a pendulum on a pin with
radial clearance that runs as it is, with every section shown and the alternatives commented.
"""

from __future__ import annotations

#: Replaced by the model's name (the new file's stem).
NAME = "@NAME@"

TEMPLATE = """\
# A model file for nlpmbd (format: io/model_file.py; more in examples/*.toml).
# Run it with:   nlpmbd run @NAME@.toml        (options on the command line override
#                                               [options], e.g. --t-end 2 --solver nlp)
# Units: SI (m, kg, s, N, rad). Positions, axes and points are global at t = 0 unless noted.
# Every key is checked: a misspelt or misplaced key is an error naming it.

[model]
name = "@NAME@"  # names the result directory: results/@NAME@
description = "pendulum on a pin with radial clearance, pushed by a periodic torque"
gravity = [0.0, -9.81, 0.0]  # m/s^2

# ---- parameters ----------------------------------------------------------------------------
# Typed, ranged parameters, as a built-in case has: `nlpmbd run @NAME@.toml --set clearance=1e-3`,
# `--compare clearance=1e-3` and studies set them (a value out of range is an error naming it).
# A value below written "$name" is the parameter's value; "0.01 + $clearance" is arithmetic of
# them; in an expression of t it is a number ("$amplitude * sin(t)"); "$$" is a literal "$".
# Keys: default and description (required), type ("float", "int", "bool" or "str"; default:
# that of default), low, high, low_open (true: low itself excluded), choices (str), unit.
[parameters.clearance]
default = 1e-4
description = "radial clearance of the pin: hole radius - pin radius"
low = 0.0
low_open = true
high = 0.01
unit = "m"

[parameters.amplitude]
default = 0.5
description = "amplitude of the periodic torque"
unit = "N m"

# ---- bodies --------------------------------------------------------------------------------
# One [[bodies]] section per rigid body. Required: name, mass, inertia. Flexible bodies (planar
# strips of finite elements) are [[flexible_bodies]] sections (examples/*_flexible.toml).
[[bodies]]
name = "pendulum"
mass = 1.0                          # kg
inertia = [2e-3, 0.085, 0.085]      # kg m^2 about the centre of mass, body axes (principal)
# inertia = [[2e-3, 0, 0], [0, 0.085, 0], [0, 0, 0.085]]   # or the full symmetric 3x3 matrix
position = [0.5, 0.0, 0.0]          # m, centre of mass
orientation = [1.0, 0.0, 0.0, 0.0]  # unit Euler parameters [e0, e1, e2, e3] (body -> global)
# orientation = { axis = [0, 0, 1], angle = 0.5 }    # or an axis and an angle in rad,
# orientation = { axis = [0, 0, 1], degrees = 30 }   # or in degrees
velocity = [0.0, 0.0, 0.0]          # m/s, centre of mass, global axes
angular_velocity = [0.0, 0.0, 0.0]  # rad/s, BODY axes

# ---- joints --------------------------------------------------------------------------------
# One [[joints]] section per joint: `type` and the keywords of that joint class's constructor
# (nlpmbd_joints/*.py). Bodies are named by their name; "GROUND" is the fixed frame.
# Ideal:     revolute, spherical, cylindrical, prismatic, universal, fixed, planar_revolute,
#            planar_prismatic
# Driving:   driving_angle, driving_coordinate (motion = an expression of t, e.g. "2 * t")
# Clearance: revolute_clearance, cylindrical_clearance, spherical_clearance,
#            universal_clearance, planar_revolute_clearance, planar_prismatic_clearance,
#            prismatic_clearance; contact: plane_contact, sphere_contact
# Flexible:  node_contact, node_pin (the nodes of [[flexible_bodies]], Q4 strips: see
#            examples/stick_slip_flexible.toml)
[[joints]]
type = "revolute_clearance"
name = "pin"
hole = "pendulum"      # the body with the hole
pin = "GROUND"         # the body with the pin
center = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
length = 0.05          # m, engaged pin length
hole_radius = "0.01 + $clearance"   # m: pin_radius + the parameter clearance
pin_radius = 0.01      # m
axial_play = 0.0       # m, total axial play (0: an ideal axial constraint)
ends_on = "pin"        # which body carries the axis end points: "pin" or "hole"
# The contact law of its gaps: hard contact (complementarity) with Coulomb friction mu
# (mu_static >= mu, default mu; mu > 0 costs time: each step iterates the friction law) and
# Newton restitution (0: perfectly inelastic) ...
contact = { law = "hard", mu = 0.0, restitution = 0.0 }
# ... or a compliant force law, stiffness * delta^exponent with hysteresis damping (damping =
# "lankarani-nikravesh", the default, or "hunt-crossley"). Its force is explicit: it needs
# h < 0.2 sqrt(mass / stiffness), here h_min = h_max = 1e-4 (an inline table is one line):
# contact = { law = "compliant", stiffness = 1e6, exponent = 1.0, restitution = 0.8 }

# The ideal pin instead:
# [[joints]]
# type = "revolute"
# name = "pin"
# parent = "GROUND"
# child = "pendulum"
# point = [0.0, 0.0, 0.0]
# axis = [0.0, 0.0, 1.0]

# ---- loads ---------------------------------------------------------------------------------
# Forces and torques: each entry of `value` is a number or an expression of t and the body's
# state (x y z: centre of mass, m; vx vy vz: its velocity, m/s; wx wy wz: angular velocity in
# body axes, rad/s). Expressions know + - * / **, pi, e and sin cos tan asin acos atan atan2
# sinh cosh tanh exp log sqrt abs min max.
[[loads]]
type = "torque"
name = "push"
body = "pendulum"
value = [0.0, 0.0, "$amplitude * sin(2 * pi * t)"]  # N m
frame = "global"                               # axes of value: "global" or "body"

# A force at a body point (offset from the centre of mass, body frame):
# [[loads]]
# type = "force"
# name = "wind"
# body = "pendulum"
# value = ["0.2 * max(0, sin(t))", 0.0, 0.0]   # N
# point = [0.1, 0.0, 0.0]                       # m
# frame = "global"
#
# A linear spring-damper between two points (global at t = 0); length0 defaults to the
# initial distance:
# [[loads]]
# type = "spring_damper"
# name = "spring"
# parent = "GROUND"
# child = "pendulum"
# point_parent = [0.5, 0.5, 0.0]
# point_child = [0.5, 0.0, 0.0]
# stiffness = 10.0   # N/m
# damping = 0.1      # N s/m
#
# A torsional spring-damper about an axis:
# [[loads]]
# type = "rotational_spring_damper"
# name = "damper"
# parent = "GROUND"
# child = "pendulum"
# axis = [0.0, 0.0, 1.0]
# stiffness = 0.0    # N m/rad
# damping = 0.01     # N m s/rad

# ---- options -------------------------------------------------------------------------------
# Default simulation options by name (`nlpmbd run --help` lists them all).
[options]
t_end = 1.0      # s
h_min = 1e-3     # s: h_min = h_max is a fixed step
h_max = 1e-3     # s
solver = "qp"    # "qp" (fixed-step fast path) or "nlp" (IPOPT; h in [h_min, h_max] chosen
                 # by each step)
# integrator = "euler"         # first-order scheme (default "auto": verlet, euler with
                               # flexible bodies)
# step_control = "controller"  # error-controlled h in [h_min, h_max]
# error_tol = 1e-6             # m, with step_control = "controller"
"""


def template(name: str) -> str:
    """The template for a model called `name`."""
    return TEMPLATE.replace(NAME, name)
