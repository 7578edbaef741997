// The console's only script: copy buttons. Pages read and work without it (the code stays selectable).
// What it says comes from the button's data-copied and data-selected (in the page's language).
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
