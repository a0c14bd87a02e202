"""Fixed-parameter algorithms on row types (Bredereck et al., Sec. 4).

``fpt-k-anonymity`` (:mod:`.k_anonymity`, Algorithm 1 with ROW ASSIGNMENT, Lemmas 1-2,
Theorem 3; Proposition 2 as ``max_t_out``) and ``fpt-p-sensitive`` (:mod:`.p_sensitive`,
p-ROW ASSIGNMENT, Lemma 3, Theorem 4): exact, with work exponential only in the number ``t_in``
of row types. See docs/algorithms/fpt-row-types.md.
"""
