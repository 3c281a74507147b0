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
    if ($("sm-mode").value === "topk") {
      p.set("mode", "topk");
      p.set("k", $("sm-k").value || "20");
      p.set("budget", $("sm-budget").value || "2");
    }
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

  // The k closest variants with no threshold, within a time budget; a cut search is marked partial.
  async function topk(p, my) {
    const q = new URLSearchParams();
    for (const key of ["index", "pattern", "max_insert", "max_delete", "score", "k"]) {
      if (p.has(key)) q.set(key, p.get(key));
    }
    q.set("max_runtime", p.get("budget"));
    const body = await getJSON("/api/softmatcha/variants?" + q.toString());
    if (my !== seq) return;
    tbody.textContent = "";
    showVariants(body.variants);
    more.hidden = true;
    $("sm-count").textContent = "top " + body.variants.length;
    $("sm-time").textContent = (body.seconds * 1000).toFixed(1) + " ms";
    $("sm-summary").hidden = false;
    const part = $("sm-partial");
    part.hidden = !body.partial;
    part.textContent = body.partial ? "partial: the time budget (" + p.get("budget") + " s) ran out; these " +
      body.variants.length + " are the best found, in exact order, and the rest were not looked at" : "";
    $("sm-warnings").hidden = true;
    state = null;
    history.replaceState(null, "", "?" + p.toString());
    status.textContent = "";
    document.body.dataset.partial = String(body.partial);
    document.body.dataset.hits = "top" + body.variants.length;
  }

  async function search() {
    const p = params();
    if (!p.get("pattern") || !p.get("index")) return;
    const my = ++seq;
    status.textContent = "searching…";
    if (p.get("mode") === "topk") {
      try {
        await topk(p, my);
        status.className = "muted";
      } catch (e) {
        if (my !== seq) return;
        status.textContent = "error: " + e.message;
        status.className = "bad";
      }
      return;
    }
    $("sm-partial").hidden = true;
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

  async function colloc() {
    const p = params();
    if (!p.get("pattern") || !p.get("index")) return;
    const q = new URLSearchParams();
    for (const key of ["index", "pattern", "threshold", "thresholds", "max_insert", "max_delete"]) {
      if (p.has(key)) q.set(key, p.get(key));
    }
    q.set("left", $("sm-cl").value || "5");
    q.set("right", $("sm-cr").value || "5");
    q.set("min_count", $("sm-cmin").value || "2");
    q.set("by", $("sm-cby").value);
    const info = $("sm-coll-info"), cbody = $("sm-colloc").querySelector("tbody");
    info.textContent = "counting…";
    try {
      const body = await getJSON("/api/softmatcha/collocates?" + q.toString());
      cbody.textContent = "";
      for (const c of body.rows) {
        const tr = document.createElement("tr");
        for (const v of [String(c.rank), c.collocate, String(c.window), String(c.left), String(c.right),
                         c.expected.toFixed(2), String(c.corpus), c.mi.toFixed(2), c.g2.toFixed(2)]) cell(tr, v);
        cbody.appendChild(tr);
      }
      info.textContent = body.count.toLocaleString("en-US") + " hits; span " + body.left + " left / " + body.right +
        " right: " + body.span_tokens.toLocaleString("en-US") + " tokens of " +
        body.population.toLocaleString("en-US") + ". " + body.reference;
      document.body.dataset.colloc = String(body.rows.length);
    } catch (e) {
      info.textContent = "error: " + e.message;
    }
  }

  form.addEventListener("submit", (ev) => { ev.preventDefault(); search(); });
  $("sm-coll-go").addEventListener("click", colloc);
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
                  max_insert: "sm-ins", max_delete: "sm-del", score: "sm-score", mode: "sm-mode", k: "sm-k",
                  budget: "sm-budget" };
  for (const [key, id] of Object.entries(fill)) if (q.has(key)) $(id).value = q.get(key);
  if (q.has("threshold")) {
    alpha.value = q.get("threshold");
    alphaOut.textContent = Number(alpha.value).toFixed(2);
  }
  if (q.get("pattern")) search();
})();
