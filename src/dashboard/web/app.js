// The tenure dashboard's page: the overview of every Lease and the view of one, kept live by
// a Server-Sent Events stream from the server (api/stream). No framework: the DOM by hand.
"use strict";
(function () {
  const main = document.getElementById("main");
  const connection = document.getElementById("connection");
  const serverList = document.getElementById("server");
  const cookieName = "tenure-dashboard-token";
  const base = location.pathname.replace(/\/(index\.html)?$/, "");

  // The server's clock minus ours, from the "now" of each message: countdowns use the server's.
  let clockOffset = 0;
  const serverNow = () => Date.now() + clockOffset;
  const noteNow = (now) => { if (now) clockOffset = Date.parse(now) - Date.now(); };

  // ---- small helpers ------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("data-")) node.setAttribute(k, v);
      else if (k === "hidden") node.hidden = true;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  const svgNs = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(svgNs, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }
  function duration(ms) {
    if (ms === null || ms === undefined || isNaN(ms)) return "–";
    const neg = ms < 0;
    ms = Math.abs(ms);
    let text;
    if (ms < 1000) text = Math.round(ms) + " ms";
    else if (ms < 60000) text = (ms / 1000).toFixed(1) + " s";
    else if (ms < 3600000) text = Math.floor(ms / 60000) + " min " + String(Math.floor(ms / 1000) % 60).padStart(2, "0") + " s";
    else if (ms < 86400000) text = Math.floor(ms / 3600000) + " h " + String(Math.floor(ms / 60000) % 60).padStart(2, "0") + " min";
    else text = Math.floor(ms / 86400000) + " d " + Math.floor(ms / 3600000) % 24 + " h";
    return neg ? "-" + text : text;
  }
  function ago(time) {
    if (!time) return "–";
    return duration(serverNow() - Date.parse(time)) + " ago";
  }
  function until(time) {
    if (!time) return "–";
    const left = Date.parse(time) - serverNow();
    return left >= 0 ? "in " + duration(left) : "expired " + duration(-left) + " ago";
  }
  function clock(time) {
    if (!time) return "–";
    const d = new Date(time);
    return d.toLocaleTimeString(undefined, { hour12: false }) + "." + String(d.getMilliseconds()).padStart(3, "0");
  }
  function dateTime(time) {
    if (!time) return "–";
    const d = new Date(time);
    return d.toLocaleDateString() + " " + clock(time);
  }
  const stateText = {
    held: "held",
    expiring: "expiring soon",
    expired: "expired",
    released: "released",
    pending: "handover pending",
    deleted: "deleted",
  };
  function stateBadge(state) {
    return el("span", { class: "state state-" + state, "data-state": state, text: stateText[state] || state });
  }
  // A colour per holder: FNV-1a of the name, spread around the wheel by the golden angle so
  // that names differing in one letter differ in colour.
  function holderColor(name) {
    let h = 0x811c9dc5;
    for (const ch of name || "") h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
    return "hsl(" + ((h % 1000) * 137.508) % 360 + " 55% 50%)";
  }
  const leaseHash = (ns, name) => "#/lease/" + encodeURIComponent(ns) + "/" + encodeURIComponent(name);

  // ---- the live stream ----------------------------------------------------------------------
  let source = null;
  let disconnectedTimer = null;
  let reopenTimer = null;
  let reopenDelay = 1000;
  function setConnection(state, text) {
    connection.className = "connection " + state;
    connection.textContent = text;
  }
  function openStream(params, handlers) {
    if (source) source.close();
    clearTimeout(reopenTimer);
    const query = new URLSearchParams(params).toString();
    source = new EventSource("api/stream?" + query);
    const mine = source;
    source.onopen = () => {
      if (mine !== source) return;
      clearTimeout(disconnectedTimer);
      disconnectedTimer = null;
      reopenDelay = 1000;
      setConnection("live", "live");
    };
    source.onerror = () => {
      if (mine !== source) return;
      // The browser gives up on a stream answered with an error (the server restarting, a
      // limit, a role withdrawn): open it again, waiting longer each time up to 10 s.
      if (mine.readyState === EventSource.CLOSED) {
        clearTimeout(reopenTimer);
        reopenTimer = setTimeout(() => { if (mine === source) openStream(params, handlers); }, reopenDelay);
        reopenDelay = Math.min(reopenDelay * 2, 10000);
      }
      // A stream that ends on schedule reconnects at once: say so only when it stays down.
      if (disconnectedTimer === null) {
        disconnectedTimer = setTimeout(() => {
          setConnection("down", "disconnected – reconnecting…");
          checkSignedIn();
        }, 1500);
      }
    };
    for (const [event, handler] of Object.entries(handlers)) {
      source.addEventListener(event, (e) => {
        if (mine !== source) return;
        const data = JSON.parse(e.data);
        noteNow(data.now);
        handler(data);
      });
    }
    source.addEventListener("server", (e) => { if (mine === source) renderServer(JSON.parse(e.data)); });
  }
  // While disconnected: a 401 means the token no longer works (sign in again).
  function checkSignedIn() {
    fetch("api/server", { credentials: "same-origin" }).then((r) => {
      if (r.status === 401) location.reload();
    }).catch(() => {});
  }

  function renderServer(info) {
    const items = [];
    const add = (label, value, key) => {
      if (value === undefined || value === null || value === "") return;
      items.push(el("div", { "data-key": key }, el("dt", { text: label }), el("dd", { text: String(value) })));
    };
    add("source", info.source, "source");
    add("version", info.version, "version");
    add("store", info.store, "store");
    add("revision", info.revision ?? info.newestLeaseRevision, "revision");
    if (info.replicas) add("replicas", info.replicas, "replicas");
    if (info.controller) add("controller", info.controller.holder || "(none)", "controller");
    add("requests", info.requests, "requests");
    add("watches", info.watchesOpen, "watches");
    add("leases", info.leases, "leases");
    if (info.history && info.history.error) add("history", "not saved: " + info.history.error, "history");
    serverList.replaceChildren(...items);
  }

  // ---- the overview -------------------------------------------------------------------------
  const overview = { namespace: "", search: "", rows: new Map(), total: 0, limit: 500, namespaces: [] };
  function rowKey(r) { return r.namespace + "/" + r.name; }

  function showOverview() {
    leaseData = null;
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    overview.namespace = params.get("namespace") || "";
    overview.search = params.get("search") || "";
    overview.rows.clear();
    const nsSelect = el("select", { id: "namespace", "aria-label": "Namespace" }, el("option", { value: "", text: "every namespace" }));
    const search = el("input", { id: "search", type: "search", placeholder: "Search name or holder  ( / )", "aria-label": "Search by namespace, name or holder", value: overview.search });
    const summary = el("p", { id: "summary", class: "summary", "aria-live": "polite" });
    const table = el("table", { id: "leases", class: "leases" },
      el("caption", { class: "visually-hidden", text: "Leases" }),
      el("thead", {}, el("tr", {},
        ...["Lease", "Namespace", "Holder", "State", "Last renewal", "Expires", "Transitions", "Strategy"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody"));
    main.replaceChildren(
      el("h1", { text: "Leader elections" }),
      el("div", { class: "controls" }, nsSelect, search),
      summary, table);
    nsSelect.addEventListener("change", () => { overview.namespace = nsSelect.value; restartOverview(); });
    let debounce = null;
    search.addEventListener("input", () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => { overview.search = search.value.trim(); restartOverview(); }, 200);
    });
    restartOverview();
  }
  function restartOverview() {
    const params = {};
    if (overview.namespace) params.namespace = overview.namespace;
    if (overview.search) params.search = overview.search;
    const hash = "#/" + (Object.keys(params).length ? "?" + new URLSearchParams(params) : "");
    if (location.hash !== hash && !(location.hash === "" && hash === "#/")) history.replaceState(null, "", hash);
    overview.rows.clear();
    openStream({ view: "overview", ...params }, { overview: onOverview });
  }
  function onOverview(data) {
    if (data.full) overview.rows.clear();
    for (const r of data.rows) overview.rows.set(rowKey(r), r);
    for (const r of data.removed || []) overview.rows.delete(rowKey(r));
    overview.total = data.total;
    overview.limit = data.limit;
    overview.namespaces = data.namespaces || [];
    renderOverview();
  }
  function renderOverview() {
    const nsSelect = document.getElementById("namespace");
    const table = document.getElementById("leases");
    if (!nsSelect || !table) return;
    const wanted = ["", ...overview.namespaces];
    if (overview.namespace && !wanted.includes(overview.namespace)) wanted.push(overview.namespace);
    if (nsSelect.options.length !== wanted.length || [...nsSelect.options].some((o, i) => o.value !== wanted[i])) {
      nsSelect.replaceChildren(...wanted.map((ns) => el("option", { value: ns, text: ns || "every namespace" })));
    }
    nsSelect.value = overview.namespace;
    const rows = [...overview.rows.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    const shown = rows.length;
    document.getElementById("summary").textContent = overview.total === 0 ? "No lease matches." :
      shown < overview.total ? `Showing ${shown} of ${overview.total} leases: narrow the search to see the others.` : `${overview.total} lease${overview.total === 1 ? "" : "s"}`;
    const tbody = table.tBodies[0];
    const focusedKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.lease : null;
    tbody.replaceChildren(...rows.map((r) => {
      const link = el("a", { href: leaseHash(r.namespace, r.name), "data-lease": rowKey(r), text: r.name });
      return el("tr", { "data-key": rowKey(r), "data-state": r.state },
        el("th", { scope: "row", "data-label": "Lease" }, link),
        el("td", { "data-label": "Namespace", text: r.namespace }),
        el("td", { "data-label": "Holder", class: "holder", text: r.holder || "(none)" }),
        el("td", { "data-label": "State" }, stateBadge(r.state)),
        el("td", { "data-label": "Last renewal", class: "age", "data-time": r.lastRenewal || "" }, ago(r.lastRenewal)),
        el("td", { "data-label": "Expires", class: "countdown", "data-time": r.holder ? r.expires || "" : "" }, r.holder ? until(r.expires) : "–"),
        el("td", { "data-label": "Transitions", class: "num", text: r.transitions }),
        el("td", { "data-label": "Strategy", text: r.strategy || (r.candidates ? "coordinated" : "–") }));
    }));
    if (focusedKey) {
      const again = tbody.querySelector(`a[data-lease="${CSS.escape(focusedKey)}"]`);
      if (again) again.focus();
    }
  }

  // ---- one lease ----------------------------------------------------------------------------
  let leaseData = null;
  function showLease(ns, name) {
    leaseData = null;
    main.replaceChildren(
      el("nav", { class: "crumbs" }, el("a", { href: "#/", text: "Leader elections" }), " / ", ns, " / "),
      el("h1", { id: "lease-title" }, name),
      el("section", { id: "lease-head", class: "facts", "aria-label": "Now" }),
      el("section", { "aria-labelledby": "terms-title" }, el("h2", { id: "terms-title", text: "Terms" }), el("div", { id: "timeline" }), el("div", { id: "terms" })),
      el("section", { "aria-labelledby": "cadence-title" }, el("h2", { id: "cadence-title", text: "Renewal cadence" }), el("div", { id: "cadence" })),
      el("section", { "aria-labelledby": "candidates-title" }, el("h2", { id: "candidates-title", text: "Candidates" }), el("div", { id: "decision" }), el("div", { id: "candidates" })),
      el("section", { "aria-labelledby": "events-title" }, el("h2", { id: "events-title", text: "Events" }), el("div", { id: "events" })));
    openStream({ view: "lease", namespace: ns, name: name }, { lease: (d) => { leaseData = d; renderLease(); } });
  }
  function fact(label, value, attrs) {
    return el("div", attrs || {}, el("dt", { text: label }), el("dd", {}, value));
  }
  function renderLease() {
    const d = leaseData;
    const head = document.getElementById("lease-head");
    if (!head || !d) return;
    if (d.missing) {
      head.replaceChildren(el("p", { class: "notice", text: "No such lease is known (it may not exist yet)." }));
      return;
    }
    const l = d.lease;
    head.replaceChildren(el("dl", {},
      fact("State", stateBadge(l.state), { "data-key": "state" }),
      fact("Holder", l.holder || "(none)", { "data-key": "holder", class: "holder" }),
      fact("Last renewal", el("span", { class: "age", "data-time": l.lastRenewal || "" }, ago(l.lastRenewal))),
      fact("Expires", el("span", { class: "countdown", "data-time": l.holder ? l.expires || "" : "" }, l.holder ? until(l.expires) : "–")),
      fact("Lease duration", l.leaseDurationSeconds ? l.leaseDurationSeconds + " s" : "–"),
      fact("Transitions", String(l.transitions ?? "–")),
      fact("Strategy", l.strategy || "–"),
      fact("Preferred holder", l.preferredHolder || "–")));
    renderTimeline(d);
    renderTerms(d);
    renderCadence(d);
    renderCandidates(d);
    renderEvents(d);
  }
  const endText = {
    current: "holding",
    released: "released",
    expired: "expired (stopped renewing)",
    replaced: "replaced while valid",
    deleted: "lease deleted",
    unobserved: "ended while the dashboard was not watching",
  };
  function renderTerms(d) {
    const terms = [...d.terms].reverse();
    const box = document.getElementById("terms");
    if (!box) return;
    if (!terms.length) {
      box.replaceChildren(el("p", { class: "hint", text: "No term yet: nobody has held this lease while the dashboard watched." }));
      return;
    }
    box.replaceChildren(el("table", { class: "terms" },
      el("thead", {}, el("tr", {}, ...["Holder", "From", "To", "Held for", "How it ended", "Handover before"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...terms.map((t) => {
        const end = t.endTime ? Date.parse(t.endTime) : serverNow();
        const handover = t.handoverMs === undefined ? "–" : (d.terms.indexOf(t) > 0 && d.terms[d.terms.indexOf(t) - 1].end === "expired" ? "takeover after " : "") + duration(t.handoverMs);
        return el("tr", { "data-end": t.end, "data-holder": t.holder },
          el("th", { scope: "row", "data-label": "Holder" }, el("span", { class: "swatch" }), t.holder),
          el("td", { "data-label": "From", title: dateTime(t.start) }, (t.startEstimated ? "≤ " : "") + clock(t.start)),
          el("td", { "data-label": "To", title: t.endTime ? dateTime(t.endTime) : "" }, t.endTime ? clock(t.endTime) : "now"),
          el("td", { "data-label": "Held for", class: "num" }, duration(end - Date.parse(t.start))),
          el("td", { "data-label": "How it ended", class: "end end-" + t.end }, endText[t.end] || t.end),
          el("td", { "data-label": "Handover before", class: "num handover" }, handover));
      }))));
    // Colours cannot be set by a style attribute under the page's policy: set them by script.
    box.querySelectorAll("tbody tr").forEach((tr) => { tr.querySelector(".swatch").style.background = holderColor(tr.dataset.holder); });
  }
  function renderTimeline(d) {
    const box = document.getElementById("timeline");
    if (!box) return;
    if (!d.terms.length) { box.replaceChildren(); return; }
    const now = serverNow();
    const start = Math.min(...d.terms.map((t) => Date.parse(t.start)));
    const span = Math.max(now - start, 1000);
    const width = 1000, height = 46;
    const x = (t) => ((t - start) / span) * width;
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "timeline", role: "img", "aria-label": "Who held the lease over time; gaps are times without a holder" });
    for (const t of d.terms) {
      const from = Date.parse(t.start), to = t.endTime ? Date.parse(t.endTime) : now;
      const r = svg("rect", { x: x(from).toFixed(1), y: 6, width: Math.max(x(to) - x(from), 1.5).toFixed(1), height: 22, rx: 3 });
      r.style.fill = holderColor(t.holder);
      r.append(svg("title", {}, `${t.holder}: ${clock(t.start)} – ${t.endTime ? clock(t.endTime) : "now"} (${endText[t.end] || t.end})`));
      chart.append(r);
      if (t.end === "expired") chart.append(svg("line", { x1: x(to).toFixed(1), x2: x(to).toFixed(1), y1: 2, y2: 32, class: "expiry" }));
    }
    chart.append(svg("text", { x: 0, y: 44, class: "axis" }, clock(new Date(start).toISOString())));
    chart.append(svg("text", { x: width, y: 44, class: "axis", "text-anchor": "end" }, "now"));
    box.replaceChildren(chart);
  }
  function renderCadence(d) {
    const box = document.getElementById("cadence");
    if (!box) return;
    const list = d.renewals;
    if (!list.length) {
      box.replaceChildren(el("p", { class: "hint", text: "No renewal seen yet." }));
      return;
    }
    const durationMs = (d.lease.leaseDurationSeconds || 0) * 1000;
    const intervals = list.map((r) => r.intervalMs);
    const max = Math.max(...intervals, durationMs || 0, 1);
    const width = 1000, height = 120, bar = width / Math.max(list.length, 30);
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "cadence", role: "img", "aria-label": "Time between successive renewals" });
    list.forEach((r, i) => {
      const h = (r.intervalMs / max) * (height - 10);
      const rect = svg("rect", { x: (i * bar).toFixed(1), y: (height - h).toFixed(1), width: Math.max(bar - 2, 1).toFixed(1), height: h.toFixed(1) });
      rect.append(svg("title", {}, `${clock(r.at)}: ${duration(r.intervalMs)} after the one before`));
      chart.append(rect);
    });
    if (durationMs) {
      const y = height - (durationMs / max) * (height - 10);
      chart.append(svg("line", { x1: 0, x2: width, y1: y.toFixed(1), y2: y.toFixed(1), class: "limit" }));
    }
    const sorted = [...intervals].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    const worst = sorted[sorted.length - 1];
    const irregular = worst > 2 * median && worst > 1000;
    box.replaceChildren(chart, el("p", { class: irregular ? "notice warn" : "hint" },
      `Median ${duration(median)}, longest ${duration(worst)} over the last ${list.length} renewals` +
      (durationMs ? `; the lease lasts ${duration(durationMs)} (the line).` : ".") +
      (irregular ? " Irregular renewals: the holder may be overloaded or losing its connection." : "")));
  }
  function renderCandidates(d) {
    const box = document.getElementById("candidates");
    const decision = document.getElementById("decision");
    if (!box || !decision) return;
    const dec = d.decision || {};
    if (!d.candidates.length) {
      decision.replaceChildren(el("p", { class: "hint", text: "No LeaseCandidate runs for this lease: its holders elect themselves (client-go's algorithm)." }));
      box.replaceChildren();
      return;
    }
    const parts = [];
    if (dec.candidateStrategy) parts.push(`The candidates ask for ${dec.candidateStrategy}.`);
    if (dec.conflict) parts.push(`Conflict: ${dec.conflict}.`);
    if (dec.best) parts.push(`It ranks ${dec.best} first (lowest emulation version, then lowest binary version, then the oldest).`);
    if (dec.preferredHolder) parts.push(`The controller prefers ${dec.preferredHolder}` + (dec.holder === dec.preferredHolder ? ", who holds the lease." : dec.holder ? `; ${dec.holder} holds it until it lets go.` : "; nobody holds it yet."));
    else if (dec.holder) parts.push(`${dec.holder} holds it.`);
    decision.replaceChildren(el("p", { id: "decision-text", class: "decision" }, parts.join(" ")));
    box.replaceChildren(el("table", { class: "candidates" },
      el("thead", {}, el("tr", {}, ...["Rank", "Candidate", "Binary version", "Emulation version", "Strategy", "Renewed", "Ping", "Role"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...d.candidates.map((c) => {
        const roles = [c.holder && "holder", c.preferred && "preferred", c.best && "ranked first"].filter(Boolean).join(", ");
        return el("tr", { "data-candidate": c.name, class: c.holder ? "is-holder" : "" },
          el("td", { "data-label": "Rank", class: "num", text: c.rank }),
          el("th", { scope: "row", "data-label": "Candidate", text: c.name }),
          el("td", { "data-label": "Binary version", text: c.binaryVersion || "–" }),
          el("td", { "data-label": "Emulation version", text: c.emulationVersion || "–" }),
          el("td", { "data-label": "Strategy", text: c.strategy || "–" }),
          el("td", { "data-label": "Renewed", class: "age", "data-time": c.renewTime || "" }, ago(c.renewTime)),
          el("td", { "data-label": "Ping", text: c.pingPending ? "waiting for an answer" : c.pingTime ? "answered" : "–" }),
          el("td", { "data-label": "Role", class: "role", text: roles || "–" }));
      }))));
  }
  function renderEvents(d) {
    const box = document.getElementById("events");
    if (!box) return;
    if (d.events === null) {
      box.replaceChildren(el("p", { class: "hint", text: "Reading the events…" }));
      return;
    }
    if (!d.events.length) {
      box.replaceChildren(el("p", { class: "hint none", text: "No events for this lease." }));
      return;
    }
    box.replaceChildren(el("table", { class: "events" },
      el("thead", {}, el("tr", {}, ...["Last seen", "Type", "Reason", "From", "Message", "Count"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...d.events.map((e) => el("tr", { class: e.type === "Warning" ? "warning" : "" },
        el("td", { "data-label": "Last seen", class: "age", "data-time": e.last || "" }, ago(e.last)),
        el("td", { "data-label": "Type", text: e.type }),
        el("td", { "data-label": "Reason", text: e.reason }),
        el("td", { "data-label": "From", text: e.source || "–" }),
        el("td", { "data-label": "Message", text: e.message }),
        el("td", { "data-label": "Count", class: "num", text: e.count || 1 }))))));
  }

  // ---- time that passes without messages -----------------------------------------------------
  setInterval(() => {
    document.querySelectorAll(".countdown[data-time]").forEach((n) => { if (n.dataset.time) n.textContent = until(n.dataset.time); });
    document.querySelectorAll(".age[data-time]").forEach((n) => { if (n.dataset.time) n.textContent = ago(n.dataset.time); });
  }, 250);
  setInterval(() => { if (leaseData) { renderTimeline(leaseData); } }, 1000);

  // ---- routes and keys ----------------------------------------------------------------------
  function route() {
    const hash = location.hash || "#/";
    const m = hash.match(/^#\/lease\/([^/]+)\/([^/?]+)/);
    if (m) showLease(decodeURIComponent(m[1]), decodeURIComponent(m[2]));
    else showOverview();
  }
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
    if (e.key === "/" && !typing) {
      const search = document.getElementById("search");
      if (search) { e.preventDefault(); search.focus(); }
    } else if (e.key === "Escape" && location.hash.startsWith("#/lease/")) {
      location.hash = "#/";
    }
  });
  document.getElementById("signout").addEventListener("click", () => {
    document.cookie = cookieName + "=; path=" + (base || "/") + "; max-age=0; SameSite=Strict";
    if (source) source.close();
    location.replace((base || "") + "/");
  });
  route();
})();
