"""Condenses cdp_workers.py's JSON output: python spike/summarize.py < out.json"""
import json, sys

txt = sys.stdin.read()
dec, i, objs = json.JSONDecoder(), 0, []
while i < len(txt):
    while i < len(txt) and txt[i].isspace():
        i += 1
    if i >= len(txt):
        break
    o, i = dec.raw_decode(txt, i)
    objs.append(o)
for o in objs:
    if "results" not in o:
        print("memory:", {k: v for k, v in o.items() if k.startswith("pss") or k.startswith("devtools_requests")})
        print("  processes:", o.get("processes_after"))
        continue
    r = o["results"] or {}
    print(o["session"], o["mode"], "page->all results ms:", o.get("page_to_results_ms"))
    for k, v in r.items():
        if isinstance(v, dict) and "hc" in v:
            print(f"  {k:9} hc={v['hc']} platform={v['platform']!r} dm={v['dm']} tz={v['tz']} prelude={v.get('prelude')}")
    print("  detectors", r.get("detectors"))
    for k in ("bindings", "timings", "own_context", "browser_session_answer", "discover_answer",
              "attach_shared_answer", "page_tz_answer", "methods_sent", "events_seen"):
        if k in o:
            print("  ", k, o[k])
    for t in o.get("targets", []):
        print("   T", t)
    if o.get("discovered"):
        print("   discovered", o["discovered"])
