"""Issue 31: the published reference problems of other simulators, run by nlpmbd and compared."""
