"""Squared distances between 200 random Isolet rows under several scalings,
and the off-diagonal values of Jebara (2004) Fig. 3's RBF kernels on them
(issue 44 §3; docs/reproductions/jebara2004.md, "Fig. 3: hypotheses").

Run: /usr/bin/python3 scripts/isolet-distances.py   (numpy; $REPRO_DATA or ../shared/data/paper)
"""
import gzip
import os

import numpy as np

data = os.environ.get("REPRO_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "paper"))
rng=np.random.default_rng(0)
X=np.vstack([np.loadtxt(gzip.open(os.path.join(data, 'uci', 'isolet', f)), delimiter=',') for f in ['isolet1+2+3+4.csv.gz','isolet5.csv.gz']])
y=X[:,-1]; X=X[:,:-1]
print(X.shape, X.min(), X.max())
idx=rng.choice(len(X),200,replace=False)
def q(Z,name):
    A=Z[idx]; G=A@A.T; n=np.diag(G); D=n[:,None]+n[None,:]-2*G
    d=D[np.triu_indices(200,1)]
    qs=np.quantile(d,[0,0.1,0.5,0.9,1])
    print(f"{name:28s} d2 min {qs[0]:.4g} p10 {qs[1]:.4g} med {qs[2]:.4g} p90 {qs[3]:.4g} max {qs[4]:.4g}  ratio p90/min {qs[3]/qs[0]:.3g}")
    for s in [10,1,0.1,0.01]:
        K=np.exp(-d/(2*s*s))
        print(f"   sigma {s:5}: kernel off-diag median {np.median(K):.3g}  p90 {np.quantile(K,0.9):.3g}  max {K.max():.3g}")
q(X,"as given [-1,1]")
q(X/np.linalg.norm(X,axis=1,keepdims=True),"rows unit L2")
mu=X.mean(0); sd=X.std(0); sd[sd==0]=1
q((X-mu)/sd,"columns standardized")
q((X+1)/2,"columns to [0,1]")
q(X/X.shape[1],"divided by p=617")
