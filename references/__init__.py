"""Independent references of the tests and benchmarks: minimal-coordinate models, an LCP
time-stepper, closed forms. None of them uses nlpmbd."""
