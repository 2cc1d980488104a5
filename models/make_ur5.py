"""Writes models/ur5.urdf from the published numbers (python3 models/make_ur5.py; no dependencies).

Kinematics: the standard Denavit-Hartenberg table Universal Robots publishes for the UR5 (CB3),
"DH parameters for calculations of kinematics and dynamics" (universal-robots.com):
    a = [0, -0.425, -0.39225, 0, 0, 0] m, alpha = [pi/2, 0, 0, pi/2, -pi/2, 0],
    d = [0.089159, 0, 0, 0.10915, 0.09465, 0.0823] m.
Standard DH puts frame i at the distal end of link i: T_i = Rz(q_i) Tz(d_i) Tx(a_i) Rx(alpha_i).
In URDF the fixed part of T_i becomes the origin of joint i+1 (xyz = (a_i, 0, d_i), rpy =
(alpha_i, 0, 0)), so URDF link i's frame is DH frame i-1 turned by q_i, and a point p of DH frame
i sits at (a_i, 0, d_i) + Rx(alpha_i) p in it.

Masses and centres of mass (in DH frame i): the same UR article, as quoted with their frame
mapping in Universal Robots' ROS 2 description, config/ur5/physical_parameters.yaml
(github.com/UniversalRobots/Universal_Robots_ROS2_Description; forearm 2.33 kg there).
Inertia: UR publishes none; the ROS 2 description's cylinder approximations (same file,
"generated using cylinder approximation"), their axes carried into the DH frames by that file's
own notes (shoulder and wrists about DH y or z, upper arm and forearm along DH x).
Joint limits: config/ur5/joint_limits.yaml of the same repository (UR5 User Manual): +-2 pi
(the elbow +-pi), 180 deg/s, 150 N m (base joints) and 28 N m (wrists).
"""
import math

pi = math.pi
a = [0.0, -0.425, -0.39225, 0.0, 0.0, 0.0]
alpha = [pi / 2, 0.0, 0.0, pi / 2, -pi / 2, 0.0]
d = [0.089159, 0.0, 0.0, 0.10915, 0.09465, 0.0823]
names = ["shoulder", "upper_arm", "forearm", "wrist_1", "wrist_2", "wrist_3"]
joints = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"]
mass = [3.7, 8.393, 2.33, 1.219, 1.219, 0.1879]
# Centres of mass in DH frame i (the UR article's "model" values).
com = [(0.0, -0.02561, 0.00193), (0.2125, 0.0, 0.11336), (0.15, 0.0, 0.0265),
       (0.0, -0.0018, 0.01634), (0.0, 0.0018, 0.01634), (0.0, 0.0, -0.001159)]
# Cylinder approximations (radial, axial) and the DH axis of each cylinder.
cyl = [(0.014972358333333331, 0.01040625, 1), (0.13388583541666665, 0.0151074, 0),
       (0.031216803515624995, 0.004095, 0), (0.002013889583333333, 0.0021942, 1),
       (0.0018310395833333333, 0.0021942, 1), (8.062475833333332e-05, 0.0001321171875, 2)]
lower = [-2 * pi, -2 * pi, -pi, -2 * pi, -2 * pi, -2 * pi]
effort = [150.0, 150.0, 150.0, 28.0, 28.0, 28.0]


def rx(t, p):
    c, s = math.cos(t), math.sin(t)
    return (p[0], c * p[1] - s * p[2], s * p[1] + c * p[2])


def num(x):
    """A length, rid of the rotation's rounding (1e-12 m)."""
    x = round(x, 12) + 0.0
    return "0" if x == 0 else repr(x)


def angle(x):
    return "0" if x == 0 else repr(x)


out = ['<?xml version="1.0"?>',
       "<!-- Universal Robots UR5 (CB3), written by models/make_ur5.py from the published numbers it",
       "     cites (kinematics, masses, centres of mass: Universal Robots; inertia: the cylinder",
       "     approximations of Universal Robots' ROS 2 description; limits: the UR5 manual).",
       "     sim/tests/urdf.rs reads it. -->",
       '<robot name="ur5">', '  <link name="base_link"/>']
for i in range(6):
    parent = "base_link" if i == 0 else names[i - 1]
    xyz, rpy = ((0.0, 0.0, 0.0), 0.0) if i == 0 else ((a[i - 1], 0.0, d[i - 1]), alpha[i - 1])
    out += [f'  <joint name="{joints[i]}_joint" type="revolute">',
            f'    <origin xyz="{num(xyz[0])} {num(xyz[1])} {num(xyz[2])}" rpy="{angle(rpy)} 0 0"/>',
            f'    <parent link="{parent}"/>', f'    <child link="{names[i]}"/>', '    <axis xyz="0 0 1"/>',
            f'    <limit lower="{lower[i]!r}" upper="{-lower[i]!r}" velocity="{pi!r}" effort="{effort[i]}"/>',
            "  </joint>"]
    c = rx(alpha[i], com[i])
    c = (c[0] + a[i], c[1], c[2] + d[i])
    radial, axial, axis = cyl[i]
    diag = [radial] * 3
    diag[axis] = axial
    out += [f'  <link name="{names[i]}">', "    <inertial>",
            f'      <origin xyz="{num(c[0])} {num(c[1])} {num(c[2])}" rpy="{angle(alpha[i])} 0 0"/>',
            f'      <mass value="{mass[i]}"/>',
            f'      <inertia ixx="{diag[0]!r}" ixy="0" ixz="0" iyy="{diag[1]!r}" iyz="0" izz="{diag[2]!r}"/>',
            "    </inertial>", "  </link>"]
out.append("</robot>\n")
with open(__file__.replace("make_ur5.py", "ur5.urdf"), "w") as f:
    f.write("\n".join(out))
