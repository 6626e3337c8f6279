"""One self-contained HTML file that steps through a game action by action (``cya-sim play --html FILE``).

No server, no network, no CDN: the styles, the script and every drawing are inline. Each step has the
table drawn after it (:mod:`cya_sim.render.svg`) as the full view and as the view of the seat to act
next (the seat that acted, once the game is over), and the log lines of that step. The card symbols are
defined once for the whole file and each distinct part of a drawing (the top band, a seat's row, the
legend, a set box) is stored once; the data is gzipped and unpacked by the browser's own
``DecompressionStream``, so a 4-player classic game of about 300 actions is about 55 kB.

Controls: the buttons ``first``, ``previous``, ``next``, ``last`` and the arrow keys (Home/End for the
ends); the ``view`` button toggles the seat's view and the full view. The page's element ids
(``counter``, ``log``, ``table``, ``view``, ``first``, ``prev``, ``next``, ``last``) are stable, for tests.
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from html import escape
from pathlib import Path

from cya_sim.render import svg
from cya_sim.render.table import Picture, Placed


@dataclass(frozen=True)
class Frame:
    """One step of a replay: ``lines`` (the log lines of the step), the drawn ``full`` and ``seat`` pictures,
    and ``seat_label`` (whose view ``seat`` is, e.g. ``seat 2's view (to act)``)."""

    lines: tuple[str, ...]
    full: Picture
    seat: Picture
    seat_label: str


_CSS = """
body{font-family:DejaVu Sans,Arial,Helvetica,sans-serif;margin:12px;background:#f0f0f0;color:#111}
#bar{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin-bottom:8px}
button{font-size:15px;padding:4px 10px}
#counter{font-weight:bold;font-size:15px;min-width:11em}
#log{background:#fff;border:1px solid #bbb;padding:6px 8px;margin:0 0 8px;white-space:pre-wrap;font-size:14px;
min-height:2.6em}
#table svg{background:#fff;max-width:100%;height:auto;border:1px solid #bbb}
#which{color:#1f4e9a;font-weight:bold}
"""

_JS = """
(async function(){
var D;
try{
  var raw=atob(document.getElementById('data').textContent.trim());
  var b=new Uint8Array(raw.length);for(var q=0;q<raw.length;q++){b[q]=raw.charCodeAt(q);}
  var st=new Blob([b]).stream().pipeThrough(new DecompressionStream('gzip'));
  D=JSON.parse(await new Response(st).text());
}catch(err){
  document.getElementById('log').textContent='this browser cannot unpack the replay (it needs DecompressionStream: '
    +'Chrome 80, Firefox 113, Safari 16.4 or later): '+err;
  return;
}
var i=0, full=false, n=D.steps.length;
function pic(k){var p=D.pics[k],h='';for(var j=0;j<p.length;j++){var f=p[j];
  h+=(typeof f==='number')?D.frags[f]:'<g transform="translate('+f[1]+','+f[2]+')">'+D.frags[f[0]]+'</g>';}
  return h+'</svg>';}
function show(){
  var s=D.steps[i];
  document.getElementById('counter').textContent='step '+i+' / '+(n-1);
  document.getElementById('log').textContent=s[2];
  var k=full?s[0]:s[1];
  document.getElementById('table').innerHTML=pic(k);
  document.getElementById('which').textContent=full?'full view':s[3];
  document.getElementById('view').textContent=full?'show the seat\\u2019s view':'show the full view';
}
function go(j){i=Math.max(0,Math.min(n-1,j));show();}
document.getElementById('first').onclick=function(){go(0);};
document.getElementById('prev').onclick=function(){go(i-1);};
document.getElementById('next').onclick=function(){go(i+1);};
document.getElementById('last').onclick=function(){go(n-1);};
document.getElementById('view').onclick=function(){full=!full;show();};
document.addEventListener('keydown',function(e){
  if(e.key==='ArrowRight'){go(i+1);}else if(e.key==='ArrowLeft'){go(i-1);}
  else if(e.key==='Home'){go(0);}else if(e.key==='End'){go(n-1);}else{return;}
  e.preventDefault();});
show();
document.body.setAttribute('data-ready','1');
})();
"""


def replay_html(frames: list[Frame], title: str) -> str:
    """The HTML text of a replay of ``frames`` (step 0 the deal, step k after the k-th action).

    Raises:
        ValueError: no frames.
    """
    if not frames:
        raise ValueError("frames: empty; a replay needs at least the deal (step 0)")
    frags: list[str] = []  # each distinct group of SVG elements once
    index: dict[str, int] = {}
    pics: list[list[int]] = []  # a picture: the fragments of its groups, in drawing order
    pic_index: dict[tuple[int, ...], int] = {}

    def frag(text: str) -> int:
        if text not in index:
            index[text] = len(frags)
            frags.append(text)
        return index[text]

    def parts(items: list) -> list:
        """A group as fragments: runs of primitives as one fragment, a placed set as [fragment, x, y]."""
        out: list = []
        run: list = []
        for it in items:
            if isinstance(it, Placed):
                if run:
                    out.append(frag(svg.group(run)))
                    run = []
                out.append((frag(svg.group(list(it.items))), it.x, it.y))
            else:
                run.append(it)
        if run:
            out.append(frag(svg.group(run)))
        return out

    def ref(p: Picture) -> int:
        key = (frag(svg.wrap(p, "", with_defs=False)[: -len("</svg>")]),) + tuple(
            x for g in p.groups for x in parts(g))
        if key not in pic_index:
            pic_index[key] = len(pics)
            pics.append([k if isinstance(k, int) else [k[0], round(k[1], 1), round(k[2], 1)] for k in key])
        return pic_index[key]

    steps = [[ref(f.full), ref(f.seat), "\n".join(f.lines), f.seat_label] for f in frames]
    faces = frames[0].full.faces
    data = json.dumps({"steps": steps, "pics": pics, "frags": frags}, separators=(",", ":"), ensure_ascii=False)
    # gzip (mtime 0: the same game gives the same file) and base64; the page unpacks it with the browser's own
    # DecompressionStream (no library, no network)
    packed = base64.b64encode(gzip.compress(data.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1 style=\"font-size:18px;margin:0 0 8px\">{escape(title)}</h1>"
            '<div id="bar"><button id="first" title="first (Home)">&laquo; first</button>'
            '<button id="prev" title="previous (&#x2190;)">&#x25C0; previous</button>'
            '<button id="next" title="next (&#x2192;)">next &#x25B6;</button>'
            '<button id="last" title="last (End)">last &raquo;</button>'
            '<span id="counter"></span><button id="view"></button><span id="which"></span></div>'
            '<pre id="log"></pre>'
            '<svg width="0" height="0" style="position:absolute" aria-hidden="true">'
            f"{svg.defs(faces)}</svg>"
            '<div id="table"></div>'
            f'<script type="application/octet-stream" id="data">{packed}</script>'
            f"<script>{_JS}</script></body></html>")


def save_replay(frames: list[Frame], path: str | Path, title: str) -> Path:
    """Write :func:`replay_html` to ``path`` (UTF-8); return the path.

    Raises:
        ValueError: no frames. OSError: the file cannot be written.
    """
    path = Path(path)
    path.write_text(replay_html(frames, title), encoding="utf-8")
    return path
