// The console's only script: copy buttons, the messages of required fields, and the record pages
// that follow their status. Pages read and work without it. What it says comes from the page's
// data- attributes (data-copied, data-selected, ...), in the page's language.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    const status = document.getElementById("copy-status");
    if (!source) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      source.select();
      try {
        await navigator.clipboard.writeText(source.value);
        if (status) status.textContent = button.dataset.copied || "";
      } catch {
        if (status) status.textContent = button.dataset.selected || "";
      }
    });
  }
});

// A required field sent empty: its own message (the paragraph the page holds beside it) shows
// instead of the browser's bubble, the first such field takes the focus; typing hides it again.
function describe(field, id, on) {
  const ids = (field.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && x !== id);
  if (on) ids.unshift(id);
  if (ids.length) field.setAttribute("aria-describedby", ids.join(" "));
  else field.removeAttribute("aria-describedby");
}

let focused = false;
document.addEventListener("invalid", (event) => {
  const field = event.target;
  const message = document.getElementById("m-" + field.name);
  if (!message || !field.validity.valueMissing) return;
  event.preventDefault();
  message.hidden = false;
  field.setAttribute("aria-invalid", "true");
  describe(field, message.id, true);
  field.closest(".field")?.classList.add("invalid");
  if (!focused) {
    focused = true;
    field.focus();
    setTimeout(() => { focused = false; });
  }
}, true);

document.addEventListener("input", (event) => {
  const field = event.target;
  const message = field.name && document.getElementById("m-" + field.name);
  if (!message || message.hidden || !field.value.trim()) return;
  message.hidden = true;
  describe(field, message.id, false);
  if (!document.getElementById("e-" + field.name)) {
    field.removeAttribute("aria-invalid");
    field.closest(".field")?.classList.remove("invalid");
  }
}, true);

// A record whose status can still change (a pending transaction, an active charge, a refund in
// process) holds its changing part in an element with data-poll, the URL of that part alone: it is
// asked again, every 2 seconds and less often while nothing changes, and its content put in place
// when it changed (the element stays: it is a polite live region, read out when it changes). The
// answer's own data-poll says whether to go on: a final status has none, and polling stops; so it
// does on any failure (a session that ended answers with a redirect).
const FIRST_WAIT = 2000;
const LONGEST_WAIT = 30000;

function follow(region) {
  let wait = FIRST_WAIT;
  const again = async () => {
    let answer;
    try {
      answer = await fetch(region.dataset.poll, { redirect: "error", cache: "no-store" });
    } catch {
      return;
    }
    if (!answer.ok) return;
    const holder = document.createElement("template");
    holder.innerHTML = (await answer.text()).trim();
    const fresh = holder.content.firstElementChild;
    if (!fresh || fresh.id !== region.id) return;
    if (fresh.innerHTML !== region.innerHTML) {
      region.replaceChildren(...fresh.childNodes);
      wait = FIRST_WAIT;
    } else {
      wait = Math.min(wait * 1.5, LONGEST_WAIT);
    }
    if (fresh.dataset.poll) {
      region.dataset.poll = fresh.dataset.poll;
      setTimeout(again, wait);
    } else {
      delete region.dataset.poll;
    }
  };
  setTimeout(again, wait);
}

document.addEventListener("DOMContentLoaded", () => {
  for (const region of document.querySelectorAll("[data-poll]")) follow(region);
});
