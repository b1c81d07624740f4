import PropertyList

/// `keyedarchive graph FILE --html` and `keyedarchive diff A B --html`: an archive's object
/// graph as one self-contained HTML page (inline style and script, no network: its
/// Content-Security-Policy allows nothing to be fetched).
///
/// The page embeds the ``ArchiveGraphModel`` as JSON data in a `<script type="application/json">`
/// element, every `<`, `>` and `&` in it written `\u003c`, `\u003e`, `\u0026`, so no text of
/// the archive can close the element or open markup; the script builds the tree on demand
/// (a node's children when it is expanded, 200 at a time) and puts every text of the archive
/// into the page with `textContent`, never as markup. The texts are the dump's, so control,
/// separator and bidirectional characters already show as `\uXXXX`.
package enum ArchiveGraphPage {
    /// In the first bytes of every page this writes: how the tool and the testing toolkit
    /// know a page they may replace.
    package static let signature = "<meta name=\"generator\" content=\"keyedarchive graph page\">"

    /// The page of one archive's graph; `start` (a node of `model`) is revealed and selected when it opens.
    package static func page(_ model: ArchiveGraphModel, title: String, start: Int? = nil) -> [UInt8] {
        var data = RenderBuffer()
        data.append("{\"mode\":\"graph\",\"sides\":[")
        appendModel(model, title: title, start: start, to: &data)
        data.append("]}")
        return assemble(data, heading: "graph")
    }

    /// The page of a comparison: both graphs side by side, each difference of `diff` marked at
    /// its key path in both.
    package static func diffPage(_ a: ArchiveGraphModel, _ b: ArchiveGraphModel, diff: ArchiveDiff, titles: (String, String)) -> [UInt8] {
        var data = RenderBuffer()
        data.append("{\"mode\":\"diff\",\"sides\":[")
        appendModel(a, title: titles.0, start: nil, to: &data)
        data.append(",")
        appendModel(b, title: titles.1, start: nil, to: &data)
        data.append("],\"diffs\":[")
        let childrenA = a.children(), childrenB = b.children()
        let firstA = a.firstOccurrences(), firstB = b.firstOccurrences()
        for (position, difference) in diff.differences.enumerated() {
            if position > 0 { data.append(",") }
            let nodeA = a.node(at: difference.path, deepest: true, children: childrenA, first: firstA) ?? -1
            let nodeB = b.node(at: difference.path, deepest: true, children: childrenB, first: firstB) ?? -1
            data.append("[")
            data.appendJSONString(difference.kind.rawValue)
            data.append(",")
            data.appendJSONString(difference.path.description)
            data.append(",")
            data.appendJSONString(difference.description.escapedForMessage)
            data.append(",\(nodeA),\(nodeB)]")
        }
        data.append("],\"omitted\":\(diff.omittedCount),\"incomplete\":")
        if let reason = diff.incompleteReason { data.appendJSONString(reason.escapedForMessage) } else { data.append("null") }
        data.append("}")
        return assemble(data, heading: "diff")
    }

    private static func appendModel(_ model: ArchiveGraphModel, title: String, start: Int?, to data: inout RenderBuffer) {
        data.append("{\"title\":")
        data.appendJSONString(title.excerptForMessage(512))
        data.append(",\"archiver\":")
        data.appendJSONString(model.archiver)
        data.append(",\"version\":\(model.version.isEmpty ? "0" : model.version),\"objects\":\(model.objectCount),\"truncated\":\(model.truncated),")
        data.append("\"maxNodes\":\(model.maximumNodes),\"start\":\(start ?? -1),")
        func column(_ name: String, _ body: (ArchiveGraphModel.Node, inout RenderBuffer) -> Void) {
            data.append("\"\(name)\":[")
            for (index, node) in model.nodes.enumerated() {
                if index > 0 { data.append(byte: UInt8(ascii: ",")) }
                body(node, &data)
            }
            data.append("],")
        }
        column("p") { node, out in out.append(String(node.parent)) }
        column("k") { node, out in out.append(String(node.kind.rawValue)) }
        column("u") { node, out in out.append(String(node.uid)) }
        column("cl") { node, out in out.append(String(node.classUID)) }
        column("b") { node, out in out.append(node.isBackReference ? "1" : "0") }
        column("l") { node, out in out.appendJSONString(node.label) }
        column("t") { node, out in out.appendJSONString(node.text) }
        // Key-path steps as ArchiveKeyPath prints them: 0 a key, 1 an index, 2 none.
        column("ci") { node, out in
            switch node.component {
            case .key?: out.append("0")
            case .index?: out.append("1")
            case nil: out.append("2")
            }
        }
        column("c") { node, out in
            switch node.component {
            case .key(let key)?: out.appendJSONString(key.excerptForMessage(128))
            case .index(let index)?: out.append("\"\(index)\"")
            case nil: out.append("\"\"")
            }
        }
        data.append("\"notes\":{")
        var firstNote = true
        for (index, node) in model.nodes.enumerated() {
            guard let note = node.note else { continue }
            if !firstNote { data.append(",") }
            firstNote = false
            data.append("\"\(index)\":")
            data.appendJSONString(note)
        }
        data.append("},\"classes\":[")
        for (position, entry) in model.classes.enumerated() {
            if position > 0 { data.append(",") }
            data.append("[\(entry.uid),")
            data.appendJSONString(entry.name)
            data.append(",")
            data.appendJSONString(entry.chain)
            data.append(",\(entry.count)]")
        }
        data.append("]}")
    }

    /// The page around `data`: the JSON with `<`, `>` and `&` escaped (they occur only inside
    /// its strings, where `\u003c` reads back the same), so it cannot end its element.
    private static func assemble(_ data: RenderBuffer, heading: String) -> [UInt8] {
        var page = RenderBuffer()
        page.append(head)
        page.append("<script type=\"application/json\" id=\"graph-data\">")
        page.bytes.reserveCapacity(page.bytes.count + data.bytes.count + data.bytes.count / 16 + script.utf8.count + 64)
        for byte in data.bytes {
            switch byte {
            case UInt8(ascii: "<"): page.append("\\u003c")
            case UInt8(ascii: ">"): page.append("\\u003e")
            case UInt8(ascii: "&"): page.append("\\u0026")
            default: page.bytes.append(byte)
            }
        }
        page.append("</script>\n<script>\n")
        page.append(script)
        page.append("</script>\n</body>\n</html>\n")
        return page.bytes
    }

    /// The SHA-256 of the page's script (what stands between `<script>` and `</script>`), the
    /// only script its Content-Security-Policy lets run: no inline event handler, no other
    /// script element, even if one got into the page. Change it with the script:
    /// `GraphPageTests.theScriptIsTheOneThePolicyAllows` computes it with Python's hashlib
    /// and says the value, and the browser test fails (the page stays empty) until it matches.
    static let scriptHash = "sha256-QEGHm8bI8zMLKCvRiWcEOzQUxH7nGef+hf6b1tH1vQU="

    private static let head = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="keyedarchive graph page">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '\#(scriptHash)'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>keyedarchive graph</title>
<style>
:root { --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --accent: #0a58ca; --hl: #fff3b0; --back: #b03030; --diff: #ffe1e1; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg); background: #fbfbfd; }
header { padding: 8px 14px; border-bottom: 1px solid var(--line); background: #fff; position: sticky; top: 0; z-index: 2; }
header h1 { font-size: 15px; margin: 0 0 4px 0; font-weight: 600; }
.meta { color: var(--muted); }
.warn { color: #8a4b00; background: #fff4e0; border: 1px solid #f0c36d; padding: 4px 8px; margin-top: 4px; border-radius: 4px; }
.bar { display: flex; gap: 8px; align-items: center; margin-top: 6px; flex-wrap: wrap; }
.bar input { font: inherit; padding: 3px 6px; width: 22em; }
.path { font-family: ui-monospace, Menlo, Consolas, monospace; background: #f2f2f7; padding: 2px 6px; border-radius: 4px; min-width: 10em; white-space: pre; overflow-x: auto; max-width: 100%; }
main { display: flex; gap: 0; align-items: flex-start; }
.col { flex: 1 1 0; min-width: 0; padding: 8px 14px; }
.side + .side { border-left: 1px solid var(--line); }
aside { width: 280px; flex: 0 0 280px; padding: 8px 14px; border-left: 1px solid var(--line); position: sticky; top: 110px; max-height: calc(100vh - 120px); overflow: auto; }
aside h2, .col h2 { font-size: 13px; margin: 8px 0 4px; }
.tree { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
.node > .kids { margin-left: 18px; border-left: 1px dotted var(--line); padding-left: 4px; }
.row { white-space: pre; cursor: default; padding: 0 3px; border-radius: 3px; overflow: hidden; text-overflow: ellipsis; }
.row:hover { background: #f0f4ff; }
.row.sel { outline: 1px solid var(--accent); }
.row.hl { background: var(--hl); }
.row.diff { background: var(--diff); }
.row.diff.hl { background: #ffc9a8; }
.tw { display: inline-block; width: 1.2em; color: var(--muted); cursor: pointer; user-select: none; }
.lab { color: #5a3e99; }
.uid { color: var(--muted); }
.cls { color: #0b6e4f; font-weight: 600; }
.val { color: #9c2f00; }
a.ref { color: var(--accent); cursor: pointer; text-decoration: underline; }
.badge { font: 11px -apple-system, Helvetica, Arial, sans-serif; border-radius: 8px; padding: 0 6px; margin-left: 6px; }
.badge.back { color: #fff; background: var(--back); }
.badge.shared { color: var(--accent); border: 1px solid var(--accent); }
.badge.diffmark { color: #fff; background: #c0392b; }
.note { color: #8a4b00; margin-left: 6px; }
.more { color: var(--accent); cursor: pointer; margin-left: 1.2em; font-family: -apple-system, Helvetica, Arial, sans-serif; }
table.legend { border-collapse: collapse; width: 100%; }
table.legend td { padding: 1px 4px; border-bottom: 1px solid #eee; }
table.legend td.n { text-align: right; color: var(--muted); }
table.legend tr { cursor: pointer; }
table.legend tr:hover { background: #f0f4ff; }
.results div, .diffs div { cursor: pointer; padding: 1px 3px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.results div:hover, .diffs div:hover { background: #f0f4ff; }
.diffs { max-height: 30vh; overflow: auto; border: 1px solid var(--line); background: #fff; margin: 6px 14px; }
.hint { color: var(--muted); font-size: 12px; }
</style>
</head>
<body>
<header><h1 id="heading">keyedarchive graph</h1><div class="meta" id="meta"></div><div id="warnings"></div>
<div class="bar"><input id="search" type="search" placeholder="Search classes, keys and values" aria-label="Search">
<span class="hint">key path:</span><span class="path" id="path" title="the selected node's key path"></span></div></header>
<div class="diffs" id="diffs" hidden></div>
<main id="main"></main>
<noscript>This page draws the archive's graph with its own inline script; allow scripts to see it.</noscript>

"""#

    private static let script = #"""
(function () {
"use strict";
var DATA = JSON.parse(document.getElementById("graph-data").textContent);
var CHUNK = 200, MAX_RESULTS = 200, MAX_NEST = 200;
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
var selected = null, highlighted = [];
function clearHighlights() { highlighted.forEach(function (r) { r.classList.remove("hl"); }); highlighted = []; }

function View(g, container, sideName) {
  var n = g.p.length, self = this;
  var kids = new Array(n), roots = [];
  for (var i = 0; i < n; i++) { var p = g.p[i]; if (p < 0) roots.push(i); else (kids[p] || (kids[p] = [])).push(i); }
  var first = new Map(), refs = new Map();
  for (i = 0; i < n; i++) {
    var u = g.u[i];
    if (u < 0) continue;
    if (g.k[i] === 3) refs.set(u, (refs.get(u) || 0) + 1); else if (!first.has(u)) first.set(u, i);
  }
  var classOf = new Map();
  g.classes.forEach(function (c) { classOf.set(c[0], c); });
  var rows = new Array(n), shown = new Int32Array(n), expanded = new Uint8Array(n);
  var diffNodes = new Set(), diffAncestors = new Set();
  this.g = g; this.rows = rows; this.first = first;

  this.pathText = function (i) {
    var comps = [];
    for (var j = i; j >= 0; j = g.p[j]) if (g.ci[j] !== 2) comps.push(j);
    comps.reverse();
    function add(t, j) { return g.ci[j] === 1 ? t + "[" + g.c[j] + "]" : (t === "" ? "" : t + ".") + g.c[j]; }
    var t = "", k;
    if (comps.length <= 40) { for (k = 0; k < comps.length; k++) t = add(t, comps[k]); return t; }
    for (k = 0; k < 8; k++) t = add(t, comps[k]);
    t += ".\u2026.(" + (comps.length - 32) + " more).\u2026";
    for (k = comps.length - 24; k < comps.length; k++) t = add(t, comps[k]);
    return t;
  };

  function makeRow(i) {
    var node = el("div", "node"), row = el("div", "row"), k = g.k[i], has = kids[i] && kids[i].length > 0;
    node.dataset.i = i;
    row.dataset.i = i;
    row.dataset.side = sideName;
    var tw = el("span", "tw", has ? "\u25b8" : " ");
    row.appendChild(tw);
    if (g.l[i] !== "") row.appendChild(el("span", "lab", g.l[i] + ": "));
    if (k === 3) {
      var a = el("a", "ref", "\u2192 #" + g.u[i] + " " + g.t[i]);
      a.title = "shown in full elsewhere: go there";
      a.addEventListener("click", function (ev) { ev.stopPropagation(); self.jump(i); });
      row.appendChild(a);
      if (g.b[i]) { var b = el("span", "badge back", "\u21a9 back-reference"); b.title = "a reference back into an object that contains it (a cycle)"; row.appendChild(b); }
    } else {
      if (g.u[i] >= 0) row.appendChild(el("span", "uid", "#" + g.u[i] + " "));
      if (k === 2) row.appendChild(el("span", "val", g.t[i]));
      else {
        var c = el("span", "cls", g.t[i]);
        var entry = classOf.get(g.cl[i]);
        if (entry) c.title = "$classes: " + entry[2];
        row.appendChild(c);
        if (has) row.appendChild(el("span", "uid", " (" + kids[i].length + ")"));
      }
      var count = g.u[i] >= 0 ? refs.get(g.u[i]) : 0;
      if (count) { var s = el("span", "badge shared", "shared: " + count + " more reference" + (count > 1 ? "s" : "")); s.title = "other places refer to this object"; row.appendChild(s); }
      if (g.notes[i] !== undefined) row.appendChild(el("span", "note", "(" + g.notes[i] + ")"));
    }
    if (diffNodes.has(i)) { row.classList.add("diff"); row.appendChild(el("span", "badge diffmark", "differs")); }
    else if (diffAncestors.has(i)) row.appendChild(el("span", "badge diffmark", "\u2022 difference inside"));
    tw.addEventListener("click", function (ev) { ev.stopPropagation(); self.toggle(i); });
    row.addEventListener("click", function () { self.select(i); });
    row.addEventListener("dblclick", function () { self.toggle(i); });
    node.appendChild(row);
    rows[i] = row;
    return node;
  }
  function kidsBox(i) { return rows[i].parentNode.querySelector(":scope > .kids"); }
  function showMore(i, box, upTo) {
    var list = kids[i], from = shown[i], to = Math.min(list.length, Math.max(from + CHUNK, upTo || 0));
    var old = box.querySelector(":scope > .more");
    if (old) old.remove();
    var frag = document.createDocumentFragment();
    for (var j = from; j < to; j++) frag.appendChild(makeRow(list[j]));
    box.appendChild(frag);
    shown[i] = to;
    if (to < list.length) {
      var more = el("div", "more", "show " + Math.min(CHUNK, list.length - to) + " more of " + (list.length - to) + " not shown");
      more.addEventListener("click", function () { showMore(i, box); });
      box.appendChild(more);
    }
  }
  this.expand = function (i) {
    if (!kids[i] || expanded[i]) return;
    expanded[i] = 1;
    var box = el("div", "kids");
    rows[i].parentNode.appendChild(box);
    rows[i].firstChild.textContent = "\u25be";
    showMore(i, box);
  };
  this.collapse = function (i) {
    if (!expanded[i]) return;
    expanded[i] = 0;
    var box = kidsBox(i);
    if (box) box.hidden = true;
    rows[i].firstChild.textContent = "\u25b8";
  };
  this.toggle = function (i) {
    if (!kids[i]) return;
    if (expanded[i]) { this.collapse(i); return; }
    var box = kidsBox(i);
    if (box) { box.hidden = false; expanded[i] = 1; rows[i].firstChild.textContent = "\u25be"; } else this.expand(i);
  };
  // Shows node i: its ancestors expanded, enough of each list rendered. A node nested more
  // than MAX_NEST levels below the tree's top is shown in a tree that starts MAX_NEST / 2
  // levels above it (a browser cannot lay out 100,000 nested boxes).
  this.reveal = function (i) {
    var chain = [];
    for (var j = i; j >= 0; j = g.p[j]) { chain.push(j); if (j === base) break; }
    if (base >= 0 && chain[chain.length - 1] !== base) { this.render(); return this.reveal(i); }
    chain.reverse();
    if (chain.length > MAX_NEST) { this.render(chain[chain.length - MAX_NEST / 2]); return this.reveal(i); }
    for (var k = 0; k < chain.length - 1; k++) {
      var a = chain[k], child = chain[k + 1];
      if (!expanded[a]) this.toggle(a);
      var pos = kids[a].indexOf(child);
      if (pos >= shown[a]) showMore(a, kidsBox(a), pos + 1);
    }
    return rows[i];
  };
  this.select = function (i) {
    if (selected) selected.classList.remove("sel");
    selected = rows[i];
    if (selected) selected.classList.add("sel");
    document.getElementById("path").textContent = (DATA.mode === "diff" ? sideName + ": " : "") + (this.pathText(i) || "(top)");
  };
  this.focus = function (i, keep) {
    var row = this.reveal(i);
    if (!keep) clearHighlights();
    row.classList.add("hl");
    highlighted.push(row);
    row.scrollIntoView({ block: "center" });
    this.select(i);
  };
  this.jump = function (i) {
    var target = first.get(g.u[i]);
    if (target !== undefined) this.focus(target);
  };
  this.markDiff = function (i) {
    diffNodes.add(i);
    for (var j = g.p[i]; j >= 0; j = g.p[j]) diffAncestors.add(j);
  };
  this.search = function (q, out) {
    if (!this.hay) {
      this.hay = new Array(n);
      for (var j = 0; j < n; j++) this.hay[j] = (g.l[j] + "\u0000" + g.t[j]).toLowerCase();
    }
    for (var i = 0; i < n && out.length < MAX_RESULTS; i++) if (this.hay[i].indexOf(q) >= 0) out.push([this, i]);
  };
  // Renders the tree from $top, or from node `from` with a line saying where it starts.
  var treeBox = null, base = -1;
  this.render = function (from) {
    base = from === undefined ? -1 : from;
    rows = new Array(n); shown = new Int32Array(n); expanded = new Uint8Array(n);
    if (treeBox) treeBox.remove();
    treeBox = el("div", "tree");
    if (base >= 0) {
      var bar = el("div", "warn", "shown from " + this.pathText(base) + ", " + "nested too deep to show from the top; ");
      var back = el("a", "ref", "show from $top");
      back.addEventListener("click", function () { self.render(); });
      bar.appendChild(back);
      treeBox.appendChild(bar);
    }
    var top = base < 0 ? roots : [base];
    for (var r = 0; r < top.length; r++) treeBox.appendChild(makeRow(top[r]));
    container.appendChild(treeBox);
    for (r = 0; r < top.length; r++) this.expand(top[r]);
  };
}

var main = document.getElementById("main");
var views = [];
var heading = DATA.mode === "diff" ? "keyedarchive diff" : "keyedarchive graph";
document.getElementById("heading").textContent = heading + ": " + DATA.sides.map(function (s) { return s.title; }).join(" \u2194 ");
document.title = document.getElementById("heading").textContent;
var meta = [], warnings = document.getElementById("warnings");
DATA.sides.forEach(function (g, index) {
  var name = DATA.mode === "diff" ? (index === 0 ? "A" : "B") : "";
  meta.push((name ? name + ": " : "") + g.archiver + ", version " + g.version + ", " + g.objects + " objects, " + g.p.length + " nodes");
  if (g.truncated) warnings.appendChild(el("div", "warn", (name ? name + ": " : "") + "this page holds the first " + g.p.length +
    " nodes of the walk and stops there (the limit is " + g.maxNodes + " nodes and 64 MiB of text; --max-nodes sets it). " +
    "The rest is not in the page: keyedarchive dump prints all of it, and --start PATH begins the page deeper."));
  var col = el("section", "col side");
  if (name) col.appendChild(el("h2", null, name + ": " + g.title));
  main.appendChild(col);
  var view = new View(g, col, name);
  views.push(view);
});
if (DATA.mode === "diff") {
  var box = document.getElementById("diffs");
  box.hidden = false;
  var head = el("div", null, DATA.diffs.length === 0 ? "no differences" : DATA.diffs.length + " difference" + (DATA.diffs.length > 1 ? "s" : "") +
    (DATA.omitted ? " (and " + DATA.omitted + " more not listed)" : "") + " \u2014 click one to show it on both sides");
  head.style.cursor = "default";
  box.appendChild(head);
  if (DATA.incomplete !== null) box.appendChild(el("div", "warn", "comparison incomplete: " + DATA.incomplete));
  DATA.diffs.forEach(function (d) {
    if (d[3] >= 0) views[0].markDiff(d[3]);
    if (d[4] >= 0) views[1].markDiff(d[4]);
    var item = el("div", "diff-item", d[2]);
    item.dataset.kind = d[0];
    item.addEventListener("click", function () {
      clearHighlights();
      if (d[3] >= 0) views[0].focus(d[3], true);
      if (d[4] >= 0) views[1].focus(d[4], true);
      document.getElementById("path").textContent = d[1];
    });
    box.appendChild(item);
  });
}
views.forEach(function (v) { v.render(); });
document.getElementById("meta").textContent = meta.join(" \u00b7 ");

// The legend and the search results (one archive's page).
var aside = el("aside");
main.appendChild(aside);
var results = el("div", "results");
aside.appendChild(el("h2", null, "Search results"));
aside.appendChild(results);
results.appendChild(el("div", "hint", "type in the search box"));
aside.appendChild(el("h2", null, "Classes"));
var legend = el("table", "legend");
var classes = DATA.sides[0].classes.slice().sort(function (a, b) { return b[3] - a[3]; });
classes.forEach(function (c) {
  var tr = el("tr"), name = el("td", null, c[1]);
  tr.title = "$classes: " + c[2];
  tr.appendChild(name);
  tr.appendChild(el("td", "n", String(c[3])));
  tr.addEventListener("click", function () { var s = document.getElementById("search"); s.value = c[1]; runSearch(); });
  legend.appendChild(tr);
});
aside.appendChild(legend);

var timer = null;
function runSearch() {
  var q = document.getElementById("search").value.trim().toLowerCase();
  results.textContent = "";
  if (q === "") { results.appendChild(el("div", "hint", "type in the search box")); return; }
  var found = [];
  views.forEach(function (v) { v.search(q, found); });
  if (found.length === 0) results.appendChild(el("div", "hint", "nothing matches"));
  found.forEach(function (f) {
    var v = f[0], i = f[1];
    var item = el("div", "result", (v.pathText(i) || "(top)") + "  " + v.g.t[i]);
    item.addEventListener("click", function () { v.focus(i); });
    results.appendChild(item);
  });
  if (found.length >= MAX_RESULTS) results.appendChild(el("div", "hint", "first " + MAX_RESULTS + " shown"));
}
document.getElementById("search").addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(runSearch, 150); });
document.getElementById("search").addEventListener("keydown", function (ev) { if (ev.key === "Enter") { clearTimeout(timer); runSearch(); } });
DATA.sides.forEach(function (g, index) { if (g.start >= 0) views[index].focus(g.start); });
window.keyedarchiveViews = views;
document.body.dataset.ready = "1";
})();

"""#
}
