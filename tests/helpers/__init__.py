"""Shared test utilities.

- :mod:`tests.helpers.shared`: ``shared_file("data/arx/adult.csv")`` -- a file of the workspace's
  ``../shared`` folder; skips the test when it is missing (fails it under
  ``STARMIN_REQUIRE_SHARED=1``). :mod:`tests.helpers.adult`: ``adult_csv()``,
  ``adult_encoded(sensitive)``.

- :mod:`tests.helpers.tables`: ``random_table(seed, n, m, values, s)``, ``from_rows(rows, sa)``,
  ``expanded(rt)``, ``permuted(rt, seed)``, ``two_sensitive_table(seed, n)``,
  ``satisfies(plan, rt, model)``.
- :mod:`tests.helpers.naive`: ``naive_optimum(rt, model)`` -- the optimum by enumerating every
  set partition of the rows (n <= 10), independent of the brute-force DP. For an exact
  algorithm's oracle test prefer ``starmin.algorithms.exact.brute_force.solve(rt, model).stars``
  (n <= 16, fast); use ``naive_optimum`` to check the brute force itself.
"""
