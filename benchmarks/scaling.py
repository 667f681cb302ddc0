"""`python -m benchmarks.scaling [--links 1,2,4,8,16,32] [--t-end 0.05] [--rounds 3] [--h 1e-3]
[--out DIR]`: the scaling benchmark of issue 15, now nlpmbd.apps.scaling (`nlpmbd bench
--scaling`; see its docstring). Never run by tests."""

import sys

from nlpmbd.apps.scaling import main

if __name__ == "__main__":
    sys.exit(main())
