// SoftMatcha search page: calls /api/softmatcha/search and renders KWIC rows, counts, variants, paging.
// No build step, no dependencies.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const form = $("sm-form"), alpha = $("sm-alpha"), alphaOut = $("sm-alpha-out");
  const tbody = $("sm-hits").querySelector("tbody"), vbody = $("sm-variants").querySelector("tbody");
  const more = $("sm-more"), status = $("sm-status");
  let state = null;   // the query behind the rows shown: {params, next}
  let seq = 0;        // drops answers to superseded requests (slider moves quickly)
  let timer = null;

  function params() {
    const p = new URLSearchParams();
    p.set("index", $("sm-index").value);
    p.set("pattern", $("sm-pattern").value.trim());
    p.set("threshold", alpha.value);
    const per = $("sm-alphas").value.trim();
    if (per) p.set("thresholds", per);
    p.set("limit", $("sm-limit").value || "50");
    for (const [key, id] of [["max_insert", "sm-ins"], ["max_delete", "sm-del"]]) {
      const v = $(id).value.trim();
      if (v && v !== "0") p.set(key, v);
    }
    if ($("sm-score").value !== "min") p.set("score", $("sm-score").value);
    return p;
  }

  function cell(tr, text, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function addHits(hits) {
    for (const h of hits) {
      const tr = document.createElement("tr");
      tr.className = "hit-row";
      cell(tr, h.source === "<lines>" ? String(h.line) : h.source.split("/").pop() + ":" + h.line, "n");
      const l = cell(tr, "", "l");
      const span = document.createElement("span");
      span.textContent = h.left;
      l.appendChild(span);
      const k = cell(tr, "", "k");
      const mark = document.createElement("mark");
      mark.className = "hit";
      mark.textContent = h.key;
      mark.title = h.tokens.map((t, i) => t + " " + h.scores[i].toFixed(3)).join(" | ");
      k.appendChild(mark);
      cell(tr, h.right, "r");
      tbody.appendChild(tr);
    }
  }

  function showVariants(vs) {
    vbody.textContent = "";
    (vs || []).forEach((v, i) => {
      const tr = document.createElement("tr");
      cell(tr, String(v.rank)); cell(tr, v.string); cell(tr, String(v.count));
      cell(tr, v.score.toFixed(3)); cell(tr, v.inserted || v.deleted ? "+" + v.inserted + "/-" + v.deleted : "");
      vbody.appendChild(tr);
    });
  }

  async function getJSON(url) {
    const r = await fetch(url);
    const body = await r.json();
    if (!r.ok) {
      const d = body.detail;
      throw new Error(typeof d === "string" ? d : (d && d[0] && d[0].msg) || r.statusText);
    }
    return body;
  }

  function fetchVariants(p) {  // the ranked table (suffix array): best score first, exact counts
    const q = new URLSearchParams(p);
    q.delete("limit");
    q.set("k", "50");
    return getJSON("/api/softmatcha/variants?" + q.toString());
  }

  async function fetchPage(p, offset) {
    const q = new URLSearchParams(p);
    q.set("offset", String(offset));
    q.set("variants", "false");
    const r = await fetch("/api/softmatcha/search?" + q.toString());
    const body = await r.json();
    if (!r.ok) {
      const d = body.detail;
      throw new Error(typeof d === "string" ? d : (d && d[0] && d[0].msg) || r.statusText);
    }
    return body;
  }

  function downloadLinks(p) {
    for (const fmt of ["json", "csv"]) {
      const q = new URLSearchParams(p);
      q.delete("limit");
      q.set("format", fmt);
      $("sm-dl-" + fmt).href = "/api/softmatcha/download?" + q.toString();
    }
  }

  async function search() {
    const p = params();
    if (!p.get("pattern") || !p.get("index")) return;
    const my = ++seq;
    status.textContent = "searching…";
    try {
      const [body, ranked] = await Promise.all([fetchPage(p, 0), fetchVariants(p)]);
      if (my !== seq) return;
      tbody.textContent = "";
      addHits(body.hits);
      showVariants(ranked.variants);
      // a ranked page counts its total within a budget: a cut count is a lower bound
      $("sm-count").textContent = (body.count_complete === false ? "≥ " : "") + body.count.toLocaleString("en-US");
      $("sm-time").textContent = (body.seconds * 1000).toFixed(1) + " ms";
      $("sm-summary").hidden = false;
      const w = $("sm-warnings");
      w.hidden = !body.warnings.length;
      w.textContent = body.warnings.join("; ");
      state = { params: p, next: body.next_offset };
      history.replaceState(null, "", "?" + p.toString());  // the address bar now shares this search
      more.hidden = body.next_offset === null;
      downloadLinks(p);
      status.textContent = "";
      document.body.dataset.hits = String(body.count);
      document.body.dataset.alpha = p.get("threshold");
    } catch (e) {
      if (my !== seq) return;
      status.textContent = "error: " + e.message;
      status.className = "bad";
      return;
    }
    status.className = "muted";
  }

  async function loadMore() {
    if (!state || state.next === null) return;
    more.disabled = true;
    try {
      const body = await fetchPage(state.params, state.next);
      addHits(body.hits);
      state.next = body.next_offset;
      more.hidden = body.next_offset === null;
    } catch (e) {
      status.textContent = "error: " + e.message;
    } finally {
      more.disabled = false;
    }
  }

  form.addEventListener("submit", (ev) => { ev.preventDefault(); search(); });
  alpha.addEventListener("input", () => {
    alphaOut.textContent = Number(alpha.value).toFixed(2);
    clearTimeout(timer);
    timer = setTimeout(search, 150);  // re-search as the slider moves, debounced
  });
  $("sm-index").addEventListener("change", search);
  more.addEventListener("click", loadMore);

  // A shared link (?index=..&pattern=..&threshold=..) fills the form and runs its search.
  const q = new URLSearchParams(location.search);
  const fill = { index: "sm-index", pattern: "sm-pattern", thresholds: "sm-alphas", limit: "sm-limit",
                  max_insert: "sm-ins", max_delete: "sm-del", score: "sm-score" };
  for (const [key, id] of Object.entries(fill)) if (q.has(key)) $(id).value = q.get(key);
  if (q.has("threshold")) {
    alpha.value = q.get("threshold");
    alphaOut.textContent = Number(alpha.value).toFixed(2);
  }
  if (q.get("pattern")) search();
})();
