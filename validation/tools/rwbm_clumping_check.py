#!/usr/bin/env python3
# Independent check of the Eq. (4) erratum (see validation/src/errata.cpp): a plain Monte Carlo of
# sequential RW-BM (first free bit of a uniformly random non-full word) against Eq. (4).
# Run: python3 validation/tools/rwbm_clumping_check.py  (about 2 s; prints Eq. 4 vs the MC mean)
import random, math
T, A, w, N = 10**6, 10000, 32, 4096
W = T // w
def eq4():
    return sum(1.0/(1-((T-A+j)/T)**w) for j in range(N))/N
def trial(seed, scatter_fresh=False):
    rng = random.Random(seed)
    free = [0]*W
    for p in rng.sample(range(T), A): free[p//w] += 1
    steps = 0
    F = A
    for j in range(N):
        if scatter_fresh:  # re-scatter the remaining free pages uniformly (Eq. 4's assumption)
            free = [0]*W
            for p in rng.sample(range(T), F): free[p//w] += 1
        while True:
            steps += 1
            k = rng.randrange(W)
            if free[k] > 0:
                free[k] -= 1; F -= 1; break
    return steps / N
vals = [trial(s) for s in range(30)]
m = sum(vals)/len(vals); sd = (sum((v-m)**2 for v in vals)/(len(vals)-1))**0.5
print("Eq.4 %.4f  MC first-free-bit %.4f +- %.4f (2se)" % (eq4(), m, 2*sd/len(vals)**0.5))
