/* cogit report: draws the page from the JSON in #cogit-data.
   Every text from memory is hostile: it only ever reaches the page through textContent
   (el() below), never through innerHTML, attributes that run code, or URLs. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("cogit-data").textContent);
  var bySha = {};
  data.commits.forEach(function (c) { bySha[c.sha] = c; });
  var LETTER = { "user": "U", "hook": "H", "reflection": "R", "sync": "S", "human edit": "E" };
  var KIND = { "user": "you: cogit commands", "hook": "agent hooks", "reflection": "reflection", "sync": "sync", "human edit": "hand edit of the files" };
  var sessionById = {};
  data.sessions.forEach(function (s) { sessionById[s.id] = s; });
  var OPS = { "+": ["op-add", "added"], "-": ["op-del", "removed"], "~": ["op-chg", "changed"] };

  function el(tag, cls, children) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    });
    return node;
  }
  function srcClass(source) { return "src-" + String(source).replace(/[^a-z]+/g, "-"); }
  function short(sha) { return String(sha || "").slice(0, 10); }
  function pct(x) { return Math.round(x * 100) + "%"; }
  function when(iso) { return String(iso || "").replace("T", " ").replace("Z", " UTC"); }
  function kv(pairs) {
    var dl = el("dl", "kv");
    pairs.forEach(function (p) {
      if (p[1] === "" || p[1] === null || p[1] === undefined) return;
      dl.appendChild(el("dt", "", [p[0]]));
      dl.appendChild(el("dd", "", [p[1]]));
    });
    return dl;
  }
  function commitLink(sha, label) {
    var c = bySha[sha];
    var b = el("button", "link", [label || short(sha)]);
    b.type = "button";
    if (!c) {
      b.disabled = true;
      b.title = "not in this report (older than what it shows)";
      return b;
    }
    b.title = c.summary;
    b.addEventListener("click", function () { openCommit(sha, true); });
    return b;
  }

  /* ---- header ---- */
  var meta = document.getElementById("meta");
  meta.textContent = "Memory at " + data.home + " · scopes: " + data.scopes.map(function (s) { return s.name; }).join(", ") +
    " · generated " + when(data.generated_at) + " by cogit " + data.version;
  var bounds = [];
  bounds.push("Showing " + data.commits.length + " of " + data.total_commits + " commits.");
  if (data.before_since) bounds.push(data.before_since + " commits before " + data.since + " are left out (--since).");
  if (data.left_out) bounds.push(data.left_out + " older commits are left out (the newest " + data.max_commits + " are shown; --max-commits or --since change this).");
  document.getElementById("bounds").textContent = bounds.join(" ");

  var legend = document.getElementById("legend");
  data.source_classes.forEach(function (s) {
    var n = data.commits.filter(function (c) { return c.source === s; }).length;
    var sw = el("span", "sq swatch " + srcClass(s), [LETTER[s] || "?"]);
    sw.setAttribute("aria-hidden", "true");
    legend.appendChild(el("li", "", [sw, s + " (" + n + ")"]));
  });

  /* ---- the story: what memory did in the period ---- */
  function effectBlock(e) {
    var box = el("div", "effect", [el("span", "verdict v-" + e.verdict.replace(/[^a-z]+/g, "-"), [e.verdict]), " " + (e.measure || "measured effect")]);
    box.appendChild(el("div", "hint", [e.rates]));
    box.appendChild(el("div", "hint", ["applied: " + e.applied]));
    if (e.text) box.appendChild(el("div", "hint", [e.text]));
    return box;
  }
  var st = data.story;
  var SINGULAR = { learnings: "learning", heuristics: "heuristic", avoidances: "avoidance", rules: "rule", reflections: "reflection" };
  document.getElementById("h-story").textContent = st.how === "last report" ? "What memory did since the last report (" + when(st.start) + ")" :
    st.how === "since" ? "What memory did since " + when(st.start) : "What memory did (the first report on this machine: everything)";
  document.getElementById("story-bounds").textContent = st.cut ? "This period holds more commits than the report shows: it tells the newest " + st.commits +
    " (--max-commits or --since change this)." : "";
  var storyBody = document.getElementById("story-body");
  function total(part) { return part.rows.length + part.more; }
  var tiles = el("ul", "tiles");
  [[total(st.learned), "lessons learned"], [total(st.rules), "rules with evidence"], [total(st.removed) + total(st.reverts), "reverted or forgotten"],
   [total(st.synced), "merges from other machines"], [total(st.reflection), "reflections"], [total(st.sessions), "sessions"]].forEach(function (t) {
    tiles.appendChild(el("li", "tile", [el("strong", "", [String(t[0])]), " " + t[1]]));
  });
  storyBody.appendChild(tiles);
  function block(title, part, none, row) {
    var d = el("div", "story-part", [el("h3", "", [title])]);
    if (!part.rows.length) { d.appendChild(el("p", "empty", [none])); return d; }
    var ul = el("ul", "items");
    part.rows.forEach(function (x) { ul.appendChild(el("li", "", row(x))); });
    d.appendChild(ul);
    if (part.more) d.appendChild(el("p", "hint", ["… and " + part.more + " more (the timeline has them all)"]));
    return d;
  }
  function where(x) {
    var bits = [x.scope];
    if (x.title) bits.push("“" + x.title + "”");
    return el("span", "meta", [bits.join(" · ") + " · ", commitLink(x.commit)]);
  }
  var grid = el("div", "story-grid");
  grid.appendChild(block("Lessons learned", st.learned, "No new lesson in this period.", function (x) {
    return [el("div", "", [el("strong", "", [SINGULAR[x.section] || x.section]), " ", x.text, x.kept ? "" : " (no longer in memory)"]), where(x)];
  }));
  grid.appendChild(block("Rules and their measured effect", st.rules, "No rule was shown, detected or learned in this period.", function (x) {
    var out = [el("div", "", [el("code", "", [x.id]), x.new ? el("span", "pill badge", ["new"]) : null, " " + x.text]),
      el("div", "meta", [x.scope + " · " + x.detections + " detections, " + x.suppressions + " suppressions, shown in " + x.sessions_shown + " sessions in this period"])];
    if (x.effect) out.push(effectBlock(x.effect));
    return out;
  }));
  var gone = { rows: st.reverts.rows.map(function (x) { return { revert: true, x: x }; }).concat(st.removed.rows.map(function (x) { return { x: x }; })), more: st.reverts.more + st.removed.more };
  grid.appendChild(block("Reverted or forgotten", gone, "Nothing was reverted or forgotten.", function (r) {
    var x = r.x;
    if (r.revert) return [el("div", "", [el("strong", "", ["revert"]), " " + x.summary]), where(x)];
    return [el("div", "", [el("strong", "", [x.how]), " " + (SINGULAR[x.section] || x.section) + " ", x.text]), where(x)];
  }));
  grid.appendChild(block("From other machines", st.synced, "Nothing came from another machine (no merge in this period).", function (x) {
    var out = [el("div", "", [x.summary + ": " + x.n_commits + " commits made there; " + x.n_added + " items added, " + x.n_changed + " changed, " + x.n_removed + " removed"]), where(x)];
    if (x.added.length) {
      var ul = el("ul", "sub");
      x.added.forEach(function (a) { ul.appendChild(el("li", "", [(SINGULAR[a.section] || a.section) + " ", a.text])); });
      out.push(ul);
    }
    return out;
  }));
  grid.appendChild(block("What reflection proposed", st.reflection, "No reflection ran in this period (`cogit reflect`).", function (x) {
    var out = [el("div", "", [x.summary]), where(x)];
    var ul = el("ul", "sub");
    x.proposals.forEach(function (p) { ul.appendChild(el("li", "", [(SINGULAR[p.section] || p.section) + " ", p.text, p.waiting ? " (waits for review: `cogit review`)" : " (reviewed)"])); });
    x.added.forEach(function (a) { ul.appendChild(el("li", "", [(SINGULAR[a.section] || a.section) + " ", a.text, " (straight into memory)"])); });
    if (ul.childNodes.length) out.push(ul);
    return out;
  }));
  grid.appendChild(block("Sessions", st.sessions, "No agent session in this period.", function (x) {
    return [el("div", "", [x.title ? "“" + x.title + "”" : "untitled session " + x.id]),
      el("div", "meta", [[x.agent, x.scopes.join(", "), when(x.first), x.learned + " learned"].join(" · ")])];
  }));
  storyBody.appendChild(grid);

  /* ---- timeline ---- */
  var days = document.getElementById("days");
  var buttons = [];
  var groups = [];
  data.commits.forEach(function (c) {
    var g = groups.length ? groups[groups.length - 1] : null;
    if (!g || g.day !== c.day) { g = { day: c.day, commits: [] }; groups.push(g); }
    g.commits.push(c);
  });
  if (!groups.length) days.appendChild(el("p", "empty", ["No commits in this range."]));
  groups.forEach(function (g) {
    var counts = {};
    g.commits.forEach(function (c) { counts[c.source] = (counts[c.source] || 0) + 1; });
    var label = Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ");
    var day = el("div", "day", [el("h3", "day-label", [g.day, el("span", "counts", [g.commits.length + " commits: " + label])])]);
    // Consecutive commits of one session (or of one kind of change) form a run, labelled
    // with the session's title (its first prompt) or with what made them.
    var runs = [];
    g.commits.slice().reverse().forEach(function (c) {
      var sid = c.trailers["Cogit-Session"];
      var key = sid && sid !== "-" ? "s:" + sid : "k:" + c.source + (c.parents.length > 1 ? ":merge" : "");
      var r = runs.length ? runs[runs.length - 1] : null;
      if (!r || r.key !== key) { r = { key: key, sid: sid && sid !== "-" ? sid : "", commits: [] }; runs.push(r); }
      r.commits.push(c);
    });
    runs.forEach(function (r) {
      var label = runLabel(r);
      var run = el("div", "run", [el("p", "run-label", [label])]);
      var strip = el("ul", "strip");
      strip.setAttribute("aria-label", g.day + ": " + label + ", " + r.commits.length + " commits, oldest first");
      r.commits.forEach(function (c) { strip.appendChild(el("li", "", [square(c)])); });
      run.appendChild(strip);
      day.appendChild(run);
    });
    days.appendChild(day);
  });
  function runLabel(r) {
    if (r.sid) {
      var s = sessionById[r.sid];
      var name = s && s.title ? "“" + s.title + "”" : "session " + r.sid.slice(0, 12);
      return name + (s && s.agent ? " · " + s.agent : "") + (s && s.scopes.length ? " · " + s.scopes.join(", ") : "");
    }
    var c = r.commits[0];
    if (c.parents.length > 1) return "sync: merged from another machine";
    return KIND[c.source] || c.source;
  }
  function square(c) {
      var b = el("button", "sq " + srcClass(c.source), [LETTER[c.source] || "?"]);
      b.type = "button";
      b.dataset.sha = c.sha;
      b.tabIndex = -1;
      b.setAttribute("aria-pressed", "false");
      b.setAttribute("aria-label", c.time.slice(11, 19) + " " + c.source + ": " + c.summary);
      b.title = when(c.time) + " · " + c.source + " · " + c.summary;
      b.addEventListener("click", function () { openCommit(c.sha, false); });
      b.addEventListener("keydown", onKey);
      buttons.push(b);
      return b;
  }
  // Roving focus: one commit is in the Tab order; the arrow keys, Home and End move between them.
  if (buttons.length) buttons[0].tabIndex = 0;
  function onKey(ev) {
    var i = buttons.indexOf(ev.currentTarget), j = i;
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown") j = Math.min(buttons.length - 1, i + 1);
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") j = Math.max(0, i - 1);
    else if (ev.key === "Home") j = 0;
    else if (ev.key === "End") j = buttons.length - 1;
    else return;
    ev.preventDefault();
    focusButton(j);
  }
  function focusButton(j) {
    buttons.forEach(function (b, k) { b.tabIndex = k === j ? 0 : -1; });
    buttons[j].focus();
  }

  var detail = document.getElementById("detail");
  function openCommit(sha, fromElsewhere) {
    var c = bySha[sha];
    if (!c) return;
    buttons.forEach(function (b, k) {
      var on = b.dataset.sha === sha;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      if (on) b.tabIndex = 0; else b.tabIndex = -1;
    });
    detail.textContent = "";
    detail.dataset.sha = sha;
    var h = el("h3", "", [c.summary || "(no summary)"]);
    h.id = "detail-title";
    detail.appendChild(h);
    var pill = el("span", "pill " + srcClass(c.source), [c.source]);
    detail.appendChild(kv([
      ["commit", el("code", "", [c.sha])], ["time", when(c.time)], ["scope", c.scopes.join(", ")], ["source", pill],
      ["event", c.trailers["Cogit-Event"] || ""], ["author", c.author], ["session", c.trailers["Cogit-Session"] || ""],
    ]));
    detail.appendChild(el("h4", "", ["What it changed"]));
    var list = el("ul", "diff");
    c.changes.forEach(function (ch) {
      var op = OPS[ch.op] || ["", ch.op];
      var li = el("li", op[0], [el("span", "mono", [ch.line])]);
      li.setAttribute("aria-label", op[1] + " " + ch.section + " " + ch.id);
      if (ch.op === "~" && ch.fields.length) {
        var fl = el("ul", "fields");
        ch.fields.forEach(function (f) { fl.appendChild(el("li", "", [f.field + ": " + f.old + " → " + f.new])); });
        li.appendChild(fl);
      }
      list.appendChild(li);
    });
    if (!c.changes.length) list.appendChild(el("li", "", [c.diff_error || "No item changes (a commit of bookkeeping, or the root)."]));
    if (c.changes_more) list.appendChild(el("li", "", ["… and " + c.changes_more + " more (`cogit diff " + short(c.sha) + "^ " + short(c.sha) + " --json` lists all)"]));
    detail.appendChild(list);
    if (c.body) { detail.appendChild(el("h4", "", ["Message"])); detail.appendChild(el("pre", "", [c.body])); }
    detail.appendChild(el("h4", "", ["Provenance trailers"]));
    detail.appendChild(kv(Object.keys(c.trailers).map(function (k) { return [k, c.trailers[k]]; })));
    if (c.parents.length) {
      var ps = el("p", "hint", ["parents: "]);
      c.parents.forEach(function (p) { ps.appendChild(commitLink(p)); ps.appendChild(document.createTextNode(" ")); });
      detail.appendChild(ps);
    }
    // Where the panel sits below the timeline (a phone), or when opened from elsewhere, bring it into view.
    if (fromElsewhere || window.matchMedia("(max-width: 900px)").matches) {
      detail.scrollIntoView({ block: "start" });
      if (fromElsewhere) detail.focus({ preventScroll: true });
    }
  }

  /* ---- items per scope ---- */
  var itemsBody = document.getElementById("items-body");
  data.items.forEach(function (scope, n) {
    var total = 0;
    Object.keys(scope.sections).forEach(function (s) { total += scope.sections[s].length; });
    var d = el("details", "scope card", [el("summary", "", [scope.scope + " — " + total + " items (" + scope.branch + " at " + short(scope.head) + ")"])]);
    d.open = n < 3;
    if (scope.focus.current) {
      d.appendChild(el("p", "", [el("strong", "", ["Focus: "]), scope.focus.current]));
      if (scope.focus.priorities.length) {
        var ol = el("ol");
        scope.focus.priorities.forEach(function (p) { ol.appendChild(el("li", "", [p])); });
        d.appendChild(ol);
      }
    }
    Object.keys(scope.sections).forEach(function (section) {
      var rows = scope.sections[section];
      if (!rows.length) return;
      d.appendChild(el("h4", "", [section + " (" + rows.length + ")"]));
      var ul = el("ul", "items");
      rows.forEach(function (it) {
        var m = el("div", "meta", [el("code", "", [it.id])]);
        if (it.category) m.appendChild(el("span", "", [it.category]));
        if (it.created_at) m.appendChild(el("span", "", ["created " + when(it.created_at)]));
        if (it.source) m.appendChild(el("span", "", ["source " + it.source]));
        var by = bySha[it.added_by];
        if (by) {
          m.appendChild(el("span", "", ["added by ", el("span", "pill " + srcClass(by.source), [by.source]), " ", by.trailers["Cogit-Event"] || "", " ", commitLink(by.sha)]));
        } else {
          m.appendChild(el("span", "", ["added before the commits shown"]));
        }
        var others = it.changed_in.filter(function (s) { return s !== it.added_by; });
        if (others.length) {
          var ch = el("span", "", ["changed in "]);
          others.forEach(function (s) { ch.appendChild(commitLink(s)); ch.appendChild(document.createTextNode(" ")); });
          m.appendChild(ch);
        }
        ul.appendChild(el("li", "", [el("div", "", [it.text]), m]));
      });
      d.appendChild(ul);
    });
    if (!total) d.appendChild(el("p", "empty", ["Nothing in this scope yet."]));
    itemsBody.appendChild(d);
  });

  /* ---- rules ---- */
  var rulesBody = document.getElementById("rules-body");
  if (!data.rules.length) rulesBody.appendChild(el("p", "empty", ["No rules yet: they grow from detected failure patterns, or `cogit add rule TEXT --detector NAME`."]));
  var cards = el("div", "cards");
  data.rules.forEach(function (r) {
    var card = el("article", "card rule");
    card.appendChild(el("h3", "", [el("code", "", [r.id]), " · " + r.detector + " · " + r.scope]));
    card.appendChild(el("p", "", [r.text]));
    var first = r.over_time.length ? r.over_time[0].confidence : r.confidence;
    card.appendChild(el("p", "", [el("span", "conf", [pct(r.confidence)]), " confidence (from " + pct(first) + "), " +
      r.detections + " detections, " + r.suppressions + " suppressions, shown in " + r.sessions_shown + " sessions"]));
    if (r.effect) card.appendChild(effectBlock(r.effect));
    card.appendChild(chart(r));
    if (r.ledger.length) {
      var ul = el("ul", "items");
      r.ledger.forEach(function (e) {
        ul.appendChild(el("li", "", [el("div", "meta", [el("span", "", [when(e.time)]), el("strong", "", [e.kind === "detect" ? "detected" : "suppressed"]),
          el("span", "", ["session " + e.session]), e.injected ? el("span", "", ["(the rule was shown)"]) : null, commitLink(e.commit)])]));
      });
      card.appendChild(ul);
    } else {
      card.appendChild(el("p", "empty", ["No evidence yet."]));
    }
    cards.appendChild(card);
  });
  rulesBody.appendChild(cards);

  function chart(r) {
    var NS = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", "chart");
    svg.setAttribute("viewBox", "0 0 100 40");
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("role", "img");
    var pts = r.over_time;
    svg.setAttribute("aria-label", "confidence over time: " + pts.map(function (p) { return pct(p.confidence); }).join(", "));
    [0, 0.5, 1].forEach(function (y) {
      var line = document.createElementNS(NS, "line");
      line.setAttribute("class", "guide");
      line.setAttribute("x1", "0"); line.setAttribute("x2", "100");
      line.setAttribute("y1", String(38 - y * 36)); line.setAttribute("y2", String(38 - y * 36));
      svg.appendChild(line);
    });
    var poly = document.createElementNS(NS, "polyline");
    var coords = pts.map(function (p, i) {
      var x = pts.length > 1 ? (i * 100) / (pts.length - 1) : 50;
      return x.toFixed(2) + "," + (38 - Math.max(0, Math.min(1, p.confidence)) * 36).toFixed(2);
    });
    poly.setAttribute("points", coords.join(" "));
    svg.appendChild(poly);
    var title = document.createElementNS(NS, "title");
    title.textContent = r.sparkline;
    svg.appendChild(title);
    return svg;
  }

  /* ---- tools ---- */
  var toolsBody = document.getElementById("tools-body");
  var any = false;
  data.tools.forEach(function (t) {
    if (!t.tools.length && !t.engagement.total) return;
    any = true;
    var card = el("article", "card");
    card.appendChild(el("h3", "", [t.scope + " — " + t.sessions + " sessions"]));
    var most = Math.max.apply(null, [1].concat(t.tools.map(function (x) { return x.calls; })));
    var ul = el("ul", "bars");
    ul.setAttribute("aria-label", "Tool calls in " + t.scope);
    t.tools.forEach(function (x) {
      var bar = el("div", "bar");
      bar.style.width = (100 * x.calls / most).toFixed(1) + "%";
      var ok = x.calls ? Math.round(100 * (x.calls - x.failures) / x.calls) : 0;
      var nums = x.calls + " calls, " + ok + "% success" + (x.mean_ms === null ? "" : ", mean " + (x.mean_ms / 1000).toFixed(2) + " s");
      ul.appendChild(el("li", "", [el("span", "name", [x.name]), el("div", "track", [bar]), el("span", "nums", [nums])]));
    });
    card.appendChild(ul);
    if (t.sequences.length) {
      card.appendChild(el("h4", "", ["Common sequences"]));
      var sl = el("ul", "items");
      t.sequences.forEach(function (s) { sl.appendChild(el("li", "", [el("code", "", [s.sequence]), " × " + s.count])); });
      card.appendChild(sl);
    }
    if (t.engagement.total) {
      card.appendChild(el("p", "hint", ["Engagement: " + t.engagement.meaningful + " of " + t.engagement.total + " interactions meaningful"]));
    }
    toolsBody.appendChild(card);
  });
  if (!any) toolsBody.appendChild(el("p", "empty", ["No tool calls recorded yet."]));

  /* ---- sessions ---- */
  var sessionsBody = document.getElementById("sessions-body");
  if (!data.sessions.length) sessionsBody.appendChild(el("p", "empty", ["No agent sessions in the commits shown."]));
  var scards = el("div", "cards");
  data.sessions.forEach(function (s) {
    var card = el("article", "card session");
    card.appendChild(el("h3", "", [s.title ? "“" + s.title + "”" : "Untitled session (no prompt recorded)"]));
    card.appendChild(kv([["session", el("code", "", [s.id])], ["agent", s.agent], ["scopes", s.scopes.join(", ")], ["from", when(s.first)], ["to", when(s.last)]]));
    card.appendChild(el("h4", "", ["Injected"]));
    if (s.receipts.length) {
      var rl = el("ul", "items");
      s.receipts.forEach(function (r) {
        var match = data.commits.filter(function (c) { return r.commit && c.sha.indexOf(r.commit) === 0; })[0];
        var what = r.source === "reflex" ? ": a rule at the moment it applied, memory " : ": digest of memory ";
        rl.appendChild(el("li", "", [r.source + what, match ? commitLink(match.sha) : el("code", "", [r.commit || "?"]),
          ", " + r.chars + " characters ≈ " + r.tokens + " tokens, " + r.cut + " items cut"]));
      });
      card.appendChild(rl);
    } else {
      card.appendChild(el("p", "empty", ["No digest receipt in the commits shown."]));
    }
    if (s.rules_shown.length) card.appendChild(el("p", "", ["Rules shown: " + s.rules_shown.join(", ")]));
    if (s.learned.length) {
      card.appendChild(el("h4", "", ["Learned"]));
      var ll = el("ul", "items");
      s.learned.forEach(function (l) { ll.appendChild(el("li", "", [el("code", "", [l.id]), " " + l.text + " ", commitLink(l.commit)])); });
      card.appendChild(ll);
    }
    var cl = el("p", "hint", [s.commits.length + " commits: "]);
    s.commits.forEach(function (sha) { cl.appendChild(commitLink(sha)); cl.appendChild(document.createTextNode(" ")); });
    card.appendChild(cl);
    scards.appendChild(card);
  });
  sessionsBody.appendChild(scards);
  document.documentElement.dataset.ready = "1";
})();
