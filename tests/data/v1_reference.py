#!/usr/bin/python3
"""A brute-force, iteration-by-iteration reference of vLLM V1's scheduling rules as docs/serving.md
states them (FCFS, chunked prefill, recompute preemption of the newest running request), counted in
iterations. tests/serving/services_test.cpp checks gpusim's replicas against what it prints:
    /usr/bin/python3 tests/data/v1_reference.py
"""
import math
def run(reqs, total_blocks, budget=2048, max_seqs=256, bs=16, max_iters=10000):
    # reqs: list of (arrival_iter, prompt, output)
    R=[dict(id=i,arr=a,prompt=p,out=o,num=p,comp=0,gen=0,blocks=0,preempt=0,first=None,done=None) for i,(a,p,o) in enumerate(reqs)]
    waiting=[]; running=[]; free=total_blocks; it=0; pending=sorted(R,key=lambda r:r['arr'])
    while it<max_iters and (pending or waiting or running):
        while pending and pending[0]['arr']<=it: waiting.append(pending.pop(0))
        tb=budget; sched=[]; preempted=False
        i=0
        while i<len(running) and tb>0:
            r=running[i]; new=min(r['num']-r['comp'],tb)
            need=math.ceil((r['comp']+new)/bs)-r['blocks']
            ok=True
            while free<need:
                v=running.pop(); free+=v['blocks']; v['blocks']=0; v['comp']=0; v['preempt']+=1; preempted=True
                waiting.insert(0,v)
                sched=[(x,n) for x,n in sched if x is not v]
                if v is r: ok=False; break
            if not ok: break
            free-=need; r['blocks']+=need; sched.append((r,new)); tb-=new; i+=1
        if not preempted:
            while waiting and tb>0 and len(running)<max_seqs:
                r=waiting[0]; new=min(r['num']-r['comp'],tb)
                need=math.ceil((r['comp']+new)/bs)-r['blocks']
                if free<need: break
                waiting.pop(0); free-=need; r['blocks']+=need; running.append(r); sched.append((r,new)); tb-=new
        for r,new in sched:
            r['comp']+=new
            if r['comp']==r['num']:
                r['gen']+=1; r['num']+=1
                if r['first'] is None: r['first']=it
                if r['gen']==r['out']:
                    r['done']=it; running.remove(r); free+=r['blocks']; r['blocks']=0
        it+=1
    return R
if __name__=='__main__':
    R=run([(0,16,40)]*3,4)
    for r in R: print(r['id'],'first token iter',r['first'],'done iter',r['done'],'preemptions',r['preempt'])
    print('total preemptions',sum(r['preempt'] for r in R))
    R=run([(0,10,3),(0,4000,2)],1000,budget=2048)
    for r in R: print('two requests',r['id'],'first token iter',r['first'],'done iter',r['done'])
