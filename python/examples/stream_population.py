"""Stream a population arm by arm (two workers' shares of one epoch), as a training loop would.

    armid population scenarios/population_rail.toml --out generated/populations/population_rail
    python python/examples/stream_population.py generated/populations/population_rail
"""

import sys

from armid.population import Population

population = Population(sys.argv[1])
for worker in (0, 1):
    arms = list(population.iterate(seed=0, epoch=0, worker=worker, workers=2,
                                   columns=["t", "joint", "q", "qd", "qdd", "tau"]))
    rows = sum(a.joints.num_rows for a in arms)
    print(f"worker {worker}: {len(arms)} arms, {rows} joint rows; first arm {arms[0].index}")
