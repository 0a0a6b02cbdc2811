#!/usr/bin/env bash
# Installs the Debian 12 packages of the peer engines that the side-by-side
# benchmark (bench/peers/, `make bench-peers`) compares carom with. Only that
# benchmark needs them: the default build does not. Run as root (or with sudo
# available). Idempotent: does nothing when all packages are present.
#
#   libode-dev      ODE 0.16 (double precision build)
#   libbullet-dev   Bullet 3.24 (C++ headers and libs, BulletDynamics)
#   libmujoco-dev   MuJoCo 2.2.2
#   lammps          LAMMPS 2022-01-06 (`lmp`, built with OpenMPI; pulls in
#                   mpi-default-bin for `mpirun`)
#   g++             the Bullet program is C++
set -euo pipefail

packages=(g++ libode-dev libbullet-dev libmujoco-dev lammps pkg-config)

exec "$(dirname "$0")/apt-missing.sh" --lock-timeout 600 setup-peers "${packages[@]}"
