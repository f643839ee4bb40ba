#!/usr/bin/env python3
"""The default space search's exploration, tried in numpy and XGBoost (docs/results/tuning-log.md,
"Exploration on a kernel's parameter space").

A simulation of tune's online loop on a Kernel Tuner T4 space (rounds of 10, config 0 and 9 random
first, then the learner's best within 2 parameters of the 5 best measured, then its best anywhere,
and a share of each round explored), XGBoost as the learner (depth 4, eta 0.1, 200 rounds, log
runtime of the raw parameter values). Prints per GPU, median of the seeds: best measured / the
space's best at 20, 50, 100 and tau of the model at 50 on the configs not measured. A variant is a
Python dict: explore (share), init (random configs first), expmode ('random', or 'far': the configs
farthest in parameters from every measured one), lcb (rank by mean - lcb * sd of 5 bootstrap fits),
near (0: no neighbourhood step), diverse (N: the neighbourhood's 5 centres the best measured configs
at least N parameters apart from each other, not simply the 5 best), jump (N: once the best found
has not improved for `stall` rounds (2), `jumps` of the next round's configs (half) are the
learner's best at least N parameters from the 5 best), reweight (R: the model that ranks the
unmeasured at 50 weighs each measured config by 1 / the measured configs within R parameters).

Run: /usr/bin/python3 experiments/space_search_sim.py "{'explore': 0.3}" [SEEDS=5]
(xgboost, scipy: scripts/setup.sh; GRAPHCOST_DATA as the tests)
"""
import ast, gzip, json, os, sys

import numpy as np
import xgboost as xgb
from scipy.stats import kendalltau

DATA = os.environ.get("GRAPHCOST_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data"))
GPUS=['A100','A4000','A6000','MI250X','W6600','W7800']
def load(g):
    d=json.load(gzip.open(os.path.join(DATA, 'kernel-tuner', 'convolution', f'{g}_T4.json.gz')))
    names=list(d['results'][0]['configuration'].keys())
    X=[];y=[]
    for r in d['results']:
        X.append([float(r['configuration'][n]) for n in names])
        ok=r.get('invalidity')=='correct'
        y.append(r['measurements'][0]['value'] if ok else np.nan)
    X=np.array(X)
    P=np.zeros_like(X,dtype=int)
    for j in range(X.shape[1]):
        vals=sorted(set(X[:,j])); P[:,j]=[vals.index(v) for v in X[:,j]]
    return X,P,np.array(y)
PARAMS=dict(objective='reg:squarederror',max_depth=4,eta=0.1,base_score=0.5,verbosity=0,nthread=1)
RANK=False  # the variant {'rank': 1}: XGBoost's pairwise ranking objective instead of squared error on log runtime
REWEIGHT=0  # the variant {'reweight': R}: each measured config weighed 1 / (measured configs within R parameters of it)
def fit(X,y,idx,seed=0,rounds=200,P=None):
    tr=[i for i in idx if not np.isnan(y[i])]
    if REWEIGHT and P is not None:
        Q=P[tr]; w=1.0/np.array([((Q!=Q[k]).sum(1)<=REWEIGHT).sum() for k in range(len(tr))])
        m=xgb.train({**PARAMS,'seed':seed},xgb.DMatrix(X[tr],label=np.log(y[tr]),weight=w*len(tr)/w.sum()),rounds)
        return m.predict(xgb.DMatrix(X))
    if RANK:  # higher relevance = faster; the cost is its negation, lower still meaning faster
        m=xgb.train({**PARAMS,'objective':'rank:pairwise','seed':seed},xgb.DMatrix(X[tr],label=-np.log(y[tr])),rounds)
        return -m.predict(xgb.DMatrix(X))
    m=xgb.train({**PARAMS,'seed':seed},xgb.DMatrix(X[tr],label=np.log(y[tr])),rounds)
    return m.predict(xgb.DMatrix(X))
def run(X,P,y,seed,variant):
    rng=np.random.default_rng(seed); n=len(y)
    measured=[0]; pool=[i for i in rng.permutation(n) if i!=0]
    init=variant.get('init',10)
    measured+= pool[:init-1]
    explore=variant.get('explore',0.1)
    res={}
    stall=0; last=np.inf
    while len(measured)<100:
        cost=fit(X,y,measured)
        if variant.get('lcb'):
            ok_=[i for i in measured if not np.isnan(y[i])]
            bs=[]
            for b in range(variant.get('bags',5)):
                sample=list(rng.choice(ok_,len(ok_)))
                bs.append(fit(X,y,sample,seed=b,rounds=100))
            bs=np.array(bs); cost=bs.mean(0)-variant['lcb']*bs.std(0)
        if len(measured) in (20,50,100) or len(measured)==50: pass
        ms=set(measured); batch=[]
        nexp=int(round(explore*10)); nexpl=10-nexp
        ok=[i for i in measured if not np.isnan(y[i])]
        ranked=sorted(ok,key=lambda i:y[i])
        sep=variant.get('diverse',0)
        if sep:
            best=[]
            for i in ranked:
                if all((P[i]!=P[b]).sum()>=sep for b in best): best.append(i)
                if len(best)==5: break
        else: best=ranked[:5]
        order=np.argsort(cost,kind='stable')
        now=np.nanmin(y[measured]); stall=stall+1 if now>=last else 0; last=min(last,now)
        jump=variant.get('jump',0)
        if jump and stall>=variant.get('stall',2):  # stalled: the learner's best far from the 5 best, one round
            far=[c for c in order if c not in ms and all((P[c]!=P[b]).sum()>=jump for b in best)]
            batch+=far[:variant.get('jumps',nexpl//2)]; stall=0
        near=[c for c in order if c not in ms and any((P[c]!=P[b]).sum()<=2 for b in best)] if variant.get('near',1) else []
        for c in near:
            if len(batch)>=nexpl: break
            if c not in batch: batch.append(c)
        for c in order:
            if len(batch)>=nexpl: break
            if c not in ms and c not in batch: batch.append(c)
        mode=variant.get('expmode','random')
        if mode=='random':
            for c in rng.permutation(n):
                if len(batch)>=10: break
                if c not in ms and c not in batch: batch.append(c)
        elif mode=='far':  # farthest (hamming in positions) from measured ∪ batch
            S=list(ms)+batch
            d=np.min([(P!=P[s]).sum(1) for s in S],axis=0).astype(float)
            d+=rng.random(n)*0.5
            while len(batch)<10:
                c=int(np.argmax(d)); batch.append(c); d=np.minimum(d,(P!=P[c]).sum(1)); d[c]=-1
        measured+=batch
        k=len(measured)
        if k==50:
            c50=fit(X,y,measured,P=P)
            rest=[i for i in range(n) if i not in set(measured) and not np.isnan(y[i])]
            res['tau50']=kendalltau(c50[rest],y[rest])[0]
        for b in (20,50,100):
            if k==b: res[f'b{b}']=np.nanmin(y[measured])/np.nanmin(y)
    return res
variant=ast.literal_eval(sys.argv[1]) if len(sys.argv)>1 else {}
RANK=bool(variant.get('rank'))
REWEIGHT=int(variant.get('reweight',0))
seeds=int(sys.argv[2]) if len(sys.argv)>2 else 5
rows=[]
for g in GPUS:
    X,P,y=load(g)
    rs=[run(X,P,y,s,variant) for s in range(seeds)]
    med={k:np.median([r[k] for r in rs]) for k in rs[0]}
    rows.append(med)
    print(g, ' '.join(f'{k}={v:.3f}' for k,v in med.items()),flush=True)
print('n<=1.10@100:',sum(r['b100']<=1.10 for r in rows),'mean tau50',np.mean([r['tau50'] for r in rows]))
