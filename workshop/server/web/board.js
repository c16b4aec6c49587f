// The live board: the whole view from the "board" event, then the rows and summary that
// changed from each "update" event of /api/board/stream. Every text is set through
// textContent (learners choose their own names). EventSource reconnects by itself, sending
// Last-Event-ID.
"use strict";

let view = null;

// words are the page's words in the instructor's language (the server's pageWords).
const words = JSON.parse(document.body.dataset.words || "{}");
const plurals = new Intl.PluralRules(document.documentElement.lang || "en");

// say is the word id with each {name} of vars put in.
function say(id, vars) {
  let s = words[id] || id;
  for (const [k, v] of Object.entries(vars || {})) s = s.split("{" + k + "}").join(String(v));
  return s;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// plural is n with the counted word id in the form the page's language gives n.
function plural(n, id) {
  const forms = words[id] || {};
  return (forms[plurals.select(n)] || forms.other || "{n} " + id).split("{n}").join(String(n));
}

function renderPacing() {
  const box = document.getElementById("pacing");
  box.replaceChildren();
  for (const k of view.katas) {
    const p = el("p");
    let text = k.id + ": ";
    if (k.open) {
      const name = k.layers[k.open.layers - 1] || "";
      text += say("pacing", {layers: k.open.layers, all_layers: k.layers.length, layer: name, steps: k.open.steps, all_steps: k.steps});
    } else {
      text += say("everything");
    }
    p.textContent = text;
    box.append(p);
  }
}

function renderHead() {
  const head = document.getElementById("head");
  head.replaceChildren();
  const top = el("tr"), sub = el("tr");
  top.append(el("th", "", ""));
  sub.append(el("th", "", say("learner")));
  for (const k of view.katas) {
    const th = el("th", "kata", k.id);
    th.colSpan = 3;
    top.append(th);
    sub.append(el("th", "", say("layer")), el("th", "", say("quiz")), el("th", "", say("grade")));
  }
  head.append(top, sub);
}

function cellParts(k, c) {
  const layer = c.layer ? c.layer + "/" + k.layers.length + " " + c.layer_name : "—";
  const quiz = c.answered ? c.right + "/" + c.answered : "—";
  let grade = "—", cls = "dim";
  if (c.graded) {
    grade = c.passed + "/" + c.total + (c.status === "pass" ? " ✓" : " ✗");
    cls = c.status;
  }
  return [[layer, "num"], [quiz, "num"], [grade, "num " + cls]];
}

function rowElement(r) {
  const tr = el("tr");
  tr.dataset.learner = r.learner;
  const name = el("td", r.left ? "left" : "", r.name);
  if (r.flags && r.flags.length) {
    name.append(el("span", "flag", " ⚑"));
    name.title = r.flags.join("; ");
  }
  tr.append(name);
  view.katas.forEach((k, i) => {
    for (const [text, cls] of cellParts(k, r.cells[i] || {})) tr.append(el("td", cls, text));
  });
  return tr;
}

function renderRows() {
  const body = document.getElementById("rows");
  body.replaceChildren(...view.rows.map(rowElement));
  document.getElementById("empty").hidden = view.rows.length > 0;
}

function renderList(id, misses, empty) {
  const list = document.getElementById(id);
  list.replaceChildren();
  if (!misses || misses.length === 0) {
    list.append(el("li", "dim", empty));
    return;
  }
  for (const m of misses) {
    const li = el("li");
    li.append(el("code", "", m.id), document.createTextNode(" — " + plural(m.count, "learners")));
    if (m.text) li.append(el("div", "dim", m.text));
    list.append(li);
  }
}

// inline appends s to parent with `code` spans and **bold** as elements, the rest as text
// (never as HTML: the stem is the packet's, the page sets no markup from data).
function inline(parent, s) {
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0, m;
  while ((m = re.exec(s)) !== null) {
    if (m.index > last) parent.append(document.createTextNode(s.slice(last, m.index)));
    parent.append(m[1] !== undefined ? el("code", "", m[1]) : el("strong", "", m[2]));
    last = re.lastIndex;
  }
  if (last < s.length) parent.append(document.createTextNode(s.slice(last)));
}

// markdown renders a stem's Markdown (paragraphs, fenced code blocks, inline code, bold) as
// elements.
function markdown(src) {
  const box = el("div", "stem");
  const blocks = (src || "").split(/\n```[^\n]*\n([\s\S]*?)\n```/);
  blocks.forEach((b, i) => {
    if (i % 2 === 1) { box.append(el("pre", "", b)); return; }
    for (const para of b.split(/\n\s*\n/)) {
      const text = para.replace(/^```[^\n]*\n?/, "").trim();
      if (!text) continue;
      const p = el("p");
      inline(p, text.replace(/\s*\n\s*/g, " "));
      box.append(p);
    }
  });
  return box;
}

// clock words the time since started as m:ss.
function clock(started) {
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(started)) / 1000));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

let timer = null;

function renderQuiz(q) {
  const box = document.getElementById("quiz");
  box.replaceChildren();
  box.hidden = !q;
  if (timer) { clearInterval(timer); timer = null; }
  if (!q) return;
  box.append(el("h2", "", say("live_quiz") + " · " + q.kata + " · " + say(q.state === "revealed" ? "revealed" : "answering")));
  if (q.started && q.state !== "revealed") {
    const t = el("p", "timer", say("elapsed", {time: clock(q.started)}));
    box.append(t);
    timer = setInterval(() => { t.textContent = say("elapsed", {time: clock(q.started)}); }, 1000);
  }
  const waiting = q.waiting || [];
  box.append(el("p", waiting.length ? "waiting" : "dim", waiting.length ? say("waiting", {names: waiting.join(", ")}) : say("all_answered")));
  for (const it of q.items) {
    box.append(el("h3", "", it.id + " · " + it.title));
    if (it.stem) box.append(markdown(it.stem));
    box.append(el("p", "dim", plural(it.answered, "answers")));
    const most = Math.max(1, ...it.options.map(o => o.count));
    for (const o of it.options) {
      const row = el("div", "opt" + (o.key ? " key" : ""));
      row.dataset.option = o.id;
      row.append(el("span", "letter", o.id + (o.key ? " ✓" : "")));
      const bar = el("div", "bar");
      bar.style.width = (100 * o.count / most) + "%";
      bar.title = o.text;
      row.append(bar, el("span", "num", String(o.count)));
      if (q.state === "revealed") row.append(el("div", "why", o.text + (o.rationale ? " — " + o.rationale : "")));
      box.append(row);
    }
  }
}

function renderSummary() {
  const s = view.summary;
  document.getElementById("count").textContent = plural(s.learners, "learners");
  renderList("rules", s.rules, say("none_yet"));
  renderList("items", s.items, say("none_yet"));
  const att = document.getElementById("attention");
  att.replaceChildren();
  if (!s.attention || s.attention.length === 0) att.append(el("li", "dim", say("nobody")));
  for (const f of s.attention || []) att.append(el("li", "flag", f.name + ": " + f.why));
  renderQuiz(s.quiz);
}

// renderJoin replaces the join line once the workshop takes no new learner.
function renderJoin() {
  if (view.closed || view.locked) document.getElementById("join").textContent = say("no_join");
}

function render() {
  renderJoin();
  renderPacing();
  renderHead();
  renderRows();
  renderSummary();
  document.body.dataset.seq = String(view.seq);
}

function update(u) {
  for (const r of u.rows || []) {
    const i = view.rows.findIndex(x => x.learner === r.learner);
    if (i >= 0) view.rows[i] = r; else view.rows.push(r);
  }
  view.summary = u.summary;
  view.seq = u.seq;
  view.closed = u.closed;
  view.locked = u.locked;
  renderJoin();
  renderRows();
  renderSummary();
  document.body.dataset.seq = String(view.seq);
}

function setConn(state, text) {
  const c = document.getElementById("conn");
  c.textContent = text;
  c.className = state;
  document.body.dataset.state = state;
}

function connect() {
  const es = new EventSource("api/board/stream");
  es.addEventListener("open", () => setConn("live", say("live")));
  es.addEventListener("error", () => setConn("down", say("reconnecting")));
  es.addEventListener("board", e => {
    view = JSON.parse(e.data);
    view.rows = view.rows || [];
    render();
  });
  es.addEventListener("update", e => { if (view) update(JSON.parse(e.data)); });
}

connect();
