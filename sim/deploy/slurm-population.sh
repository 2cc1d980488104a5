#!/usr/bin/env bash
# A population on a Slurm cluster: one job-array task per shard, every task writing into one
# directory on a shared filesystem (each task writes the population's shards s with s mod N = K,
# each shard file set written atomically). Give the population at least as many shards as tasks
# (`arms_per_shard` in its [population] section; default 1000 arms per shard).
#
#   sbatch --array=0-15 sim/deploy/slurm-population.sh scenarios/population_rail.toml /shared/population
#   sbatch --dependency=afterok:<JOBID> --wrap "target/release/sim population verify /shared/population"
#
# A task that fails or is preempted can simply be resubmitted (`sbatch --array=<k> …`): shards
# already complete are kept, and the rest are byte-identical to an uninterrupted generation.
# `sim population verify` exits non-zero and names every missing, invalid or stray arm.
#SBATCH --job-name=population
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=population-%A_%a.log
set -euo pipefail
SCENARIO=${1:?usage: slurm-population.sh SCENARIO OUT}
OUT=${2:?usage: slurm-population.sh SCENARIO OUT}
SIM=${SIM:-target/release/sim}
: "${SLURM_ARRAY_TASK_ID:?run as a Slurm job array (sbatch --array=0-N)}"
COUNT=${SLURM_ARRAY_TASK_COUNT:?run as a Slurm job array (sbatch --array=0-N)}
export RAYON_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
exec "$SIM" population "$SCENARIO" --out "$OUT" --shard "$SLURM_ARRAY_TASK_ID/$COUNT" --quiet
