"""Stream a population (two workers' shares of one epoch), as a training loop would: arm by arm
(`iterate`) and block by block (`iterate_blocks`), with the time per arm of each.

    armid population scenarios/population_rail.toml --out generated/populations/population_rail
    python python/examples/stream_population.py generated/populations/population_rail [ARMS]

ARMS (default 500): how many arms of worker 0's share to time each way.
"""

import sys
import time

from armid.population import Population

population = Population(sys.argv[1])
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 500
columns = ["t", "joint", "q", "qd", "qdd", "tau"]
for worker in (0, 1):
    arms = list(population.iterate_blocks(seed=0, epoch=0, worker=worker, workers=2,
                                          columns=columns))
    rows = sum(a.joints.num_rows for a in arms)
    print(f"worker {worker}: {len(arms)} arms, {rows} joint rows; first arm {arms[0].index}")

for name, iterate in [("iterate (arm by arm)", population.iterate),
                      ("iterate_blocks (32 arms at a time)", population.iterate_blocks)]:
    for tables, label in [(["joints"], "6 joint columns"), (["joints", "bodies"], "every column")]:
        t0, n = time.perf_counter(), 0
        for _ in iterate(seed=0, epoch=0, worker=0, workers=2,
                         columns=None if len(tables) > 1 else columns, tables=tables):
            n += 1
            if n == limit:
                break
        print(f"{name}, {label}: {(time.perf_counter() - t0) / n * 1e3:.2f} ms per arm")
