// The console's only script: copy buttons, the messages of required fields, and the record pages
// that follow their status. Pages read and work without it.
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
        if (status) status.textContent = "Copied.";
      } catch {
        if (status) status.textContent = "Selected: press Ctrl+C to copy.";
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
